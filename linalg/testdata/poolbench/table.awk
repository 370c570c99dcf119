# Summarises run.sh's raw lines: median over rounds of each metric, per
# (build, busy, shape).
function med(s,   a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
{
	key = $1 " " $2 " " $4
	sub(/BenchmarkPoolProducts\//, "", key)
	sub(/-[0-9]+$/, "", key)
	if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
	for (i = 6; i < NF; i += 2) v[key, $(i+1)] = v[key, $(i+1)] " " $i
}
END {
	printf "%-6s %-6s %-34s %9s %9s %9s %7s %8s %7s %7s %7s\n", "build", "busy", "shape", "median-µs", "p95-µs", "max-µs", "max/med", "callerSh", "waits", "parks", "wparks"
	for (k = 1; k <= nk; k++) {
		key = order[k]; split(key, f, " ")
		printf "%-6s %-6s %-34s %9.1f %9.1f %9.1f %7.2f %8.2f %7.3f %7.3f %7.3f\n", f[1], f[2], f[3], med(v[key, "median-µs"]), med(v[key, "p95-µs"]), med(v[key, "max-µs"]), med(v[key, "max/median"]), med(v[key, "caller-shares/call"]), med(v[key, "waits/call"]), med(v[key, "parks/call"]), med(v[key, "worker-parks/call"])
	}
}
