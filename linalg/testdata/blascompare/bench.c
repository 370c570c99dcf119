/*
 * bench.c times OpenBLAS on the shapes "ntksvm bench gemm" measures and
 * prints one JSON line per shape with the same fields (op, dtype, impl,
 * threads, m, k, n, gflops, peak_gflops, pct, seconds). It is not part of
 * the Go module and is built by run.sh:
 *
 *   gcc -O2 -o bench bench.c -lopenblas
 *
 * Usage: bench RUNS OP:DTYPE:M:K:N ...
 *   OP is gemm (C = A·B, row-major, no transposes), or gram or syrk (both
 *   C = A·Aᵀ of an N×K matrix via cblas_?syrk on the lower triangle, counted
 *   as 2·N²·K flops like linalg.Gram; the two names only pair the line with
 *   ntksvm's "gram" (linalg.Gram, which also mirrors the upper triangle) or
 *   "syrk" (linalg.SyrkLower)); DTYPE is float32 or float64. The thread count
 *   is OpenBLAS's own (OPENBLAS_NUM_THREADS); the core type is reported as
 *   openblas-<openblas_get_corename()>. peak_gflops and pct are 0: the peak
 *   is measured by ntksvm.
 *
 * Operands of 4 MiB or more are advised to use transparent huge pages
 * (madvise MADV_HUGEPAGE), as ntksvm's linalg.New does, so that both sides
 * get the same memory; BLASBENCH_HUGEPAGES=0 turns that off (glibc's
 * malloc alone gives 4 KiB pages when THP is in "madvise" mode).
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

char *openblas_get_corename(void);
int openblas_get_num_threads(void);

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* fill sets x to the same cheap pattern as ntksvm's bench (values in
 * [-0.5, 0.5)). */
static void fill32(float *x, size_t n, unsigned seed) {
	unsigned h = seed * 2654435761u;
	for (size_t i = 0; i < n; i++) {
		h = h * 1664525u + 1013904223u;
		x[i] = (float)(h >> 8) / (1 << 24) - 0.5f;
	}
}

static void fill64(double *x, size_t n, unsigned seed) {
	unsigned h = seed * 2654435761u;
	for (size_t i = 0; i < n; i++) {
		h = h * 1664525u + 1013904223u;
		x[i] = (double)(h >> 8) / (1 << 24) - 0.5;
	}
}

/* alloc returns n zeroed bytes; if huge and n ≥ 4 MiB, 2 MiB-aligned and
 * advised to use transparent huge pages before they are first touched. */
static void *alloc(size_t n, int huge) {
	if (!huge || n < (4 << 20))
		return calloc(n, 1);
	void *p;
	size_t h = 2 << 20, r = (n + h - 1) / h * h;
	if (posix_memalign(&p, h, r))
		return NULL;
	madvise(p, r, MADV_HUGEPAGE); /* a hint: failure leaves 4 KiB pages */
	memset(p, 0, n);
	return p;
}

static void run(const char *op, int f64, int m, int k, int n, void *a, void *b, void *c) {
	if (strcmp(op, "gram") == 0 || strcmp(op, "syrk") == 0) {
		if (f64)
			cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, n, k, 1, a, k, 0, c, n);
		else
			cblas_ssyrk(CblasRowMajor, CblasLower, CblasNoTrans, n, k, 1, a, k, 0, c, n);
		return;
	}
	if (f64)
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1, a, k, b, n, 0, c, n);
	else
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1, a, k, b, n, 0, c, n);
}

int main(int argc, char **argv) {
	if (argc < 3) {
		fprintf(stderr, "usage: %s RUNS OP:DTYPE:M:K:N ...\n", argv[0]);
		return 2;
	}
	int runs = atoi(argv[1]);
	if (runs < 1) {
		fprintf(stderr, "bench: RUNS %s: want a positive integer\n", argv[1]);
		return 2;
	}
	double *ts = malloc(runs * sizeof *ts);
	const char *hp = getenv("BLASBENCH_HUGEPAGES");
	int huge = !hp || strcmp(hp, "0") != 0;
	for (int i = 2; i < argc; i++) {
		char op[16], dtype[16];
		int m, k, n;
		if (sscanf(argv[i], "%15[a-z]:%15[a-z0-9]:%d:%d:%d", op, dtype, &m, &k, &n) != 5 || m < 1 || k < 1 ||
		    n < 1 || (strcmp(op, "gemm") && strcmp(op, "gram") && strcmp(op, "syrk")) ||
		    (strcmp(dtype, "float32") && strcmp(dtype, "float64"))) {
			fprintf(stderr, "bench: bad shape %s: want gemm|gram|syrk:float32|float64:M:K:N\n", argv[i]);
			return 2;
		}
		int f64 = strcmp(dtype, "float64") == 0;
		size_t es = f64 ? 8 : 4;
		void *a = alloc((size_t)m * k * es, huge), *b = alloc((size_t)k * n * es, huge),
		     *c = alloc((size_t)m * n * es, huge);
		if (!a || !b || !c) {
			fprintf(stderr, "bench: out of memory for %s\n", argv[i]);
			return 1;
		}
		if (f64) {
			fill64(a, (size_t)m * k, 1);
			fill64(b, (size_t)k * n, 2);
		} else {
			fill32(a, (size_t)m * k, 1);
			fill32(b, (size_t)k * n, 2);
		}
		run(op, f64, m, k, n, a, b, c); /* warm-up */
		for (int r = 0; r < runs; r++) {
			double t0 = now();
			run(op, f64, m, k, n, a, b, c);
			ts[r] = now() - t0;
		}
		qsort(ts, runs, sizeof *ts, cmp);
		double t = runs % 2 ? ts[runs / 2] : (ts[runs / 2 - 1] + ts[runs / 2]) / 2;
		double gflops = 2.0 * m * k * n / t / 1e9;
		printf("{\"op\":\"%s\",\"dtype\":\"%s\",\"impl\":\"openblas-%s\",\"threads\":%d,\"m\":%d,\"k\":%d,"
		       "\"n\":%d,\"gflops\":%.3f,\"peak_gflops\":0,\"pct\":0,\"seconds\":%.6f}\n",
		       op, dtype, openblas_get_corename(), openblas_get_num_threads(), m, k, n, gflops, t);
		fflush(stdout);
		free(a);
		free(b);
		free(c);
	}
	free(ts);
	return 0;
}
