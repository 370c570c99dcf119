# ntksvm — build, test and benchmark. `make test` is what CI runs.
GO      ?= go
PKGS    := ./...
# Packages that call the asm kernels (more than asm's queries of the kernel
# set): their tests also run once per kernel set and, for arm64, under qemu.
ASMPKGS := ./asm ./linalg ./ntk ./svm ./svm/classify ./cmd/internal/experiment/bench
# Packages that start goroutines (go statements, time.AfterFunc): their
# tests also run under the race detector. internal/deps's TestStages checks
# both lists against the sources.
RACEPKGS := ./linalg ./linalg/npy ./ntk ./svm ./svm/classify ./svm/regress ./svm/dataset ./svm/eigenpro ./ibp ./mnist \
	./cmd/internal/experiment/bench ./cmd/internal/present/progress ./cmd/ntksvm
BIN     := bin
QEMU    ?= qemu-aarch64-static

.PHONY: all build test fmt-check vet cross unit test-purego test-impls test-race test-arm64 test-slurm bench fuzz clean

all: build

# The command is pure Go: built without cgo it is a static binary that
# reserves no C heap arenas or C thread stacks (about half a GB of address
# space under RLIMIT_AS with cgo's libc).
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN)/ntksvm ./cmd/ntksvm

test: fmt-check vet cross unit test-purego test-impls test-race test-arm64
	@echo "make test: all checks passed"

fmt-check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)
	GOARCH=arm64 $(GO) vet $(PKGS)
	GOARCH=riscv64 $(GO) vet ./asm

# Other systems: the module builds for Windows and riscv64 and vets clean
# for macOS (terminals, signals, memory maps and file locks have portable
# paths).
cross:
	GOOS=windows $(GO) build $(PKGS)
	GOOS=darwin $(GO) vet $(PKGS)
	GOARCH=riscv64 $(GO) build $(PKGS)

# unit runs the tests verbosely into $(BIN)/unit.log and prints each
# package's result line, the failures (everything but passing tests' lines)
# if any, and the tests that skipped for want of $$NTKSVM_MNIST_DIR.
unit:
	@mkdir -p $(BIN)
	@$(GO) test -v $(PKGS) > $(BIN)/unit.log 2>&1; status=$$?; \
	grep -E '^(ok|FAIL|\?) ' $(BIN)/unit.log; \
	if [ $$status -ne 0 ]; then grep -vE '^ *(=== (RUN|PAUSE|CONT|NAME)|--- (PASS|SKIP))|^PASS$$' $(BIN)/unit.log; fi; \
	skipped=$$(awk '/--- SKIP:/ { if (prev ~ /NTKSVM_MNIST_DIR/) print $$3; pending = $$3; prev = $$0; next } \
		{ if (pending != "" && /NTKSVM_MNIST_DIR/) print pending; pending = ""; prev = $$0 }' $(BIN)/unit.log | \
		sort -u | tr '\n' ' '); \
	if [ -n "$$skipped" ]; then echo "unit: skipped for want of NTKSVM_MNIST_DIR (set it to run them): $$skipped"; fi; \
	exit $$status

test-purego:
	$(GO) test -short -tags purego $(PKGS)

# Every other kernel set this CPU can run, forced through NTKSVM_SIMD (unit
# ran the one chosen by default: the best, or $$NTKSVM_SIMD).
test-impls:
	@impls=$$($(GO) run ./cmd/ntksvm cpu -list) || exit 1; \
	ran=$${NTKSVM_SIMD:-$$(echo "$$impls" | head -n 1)}; \
	for k in $$impls; do \
		[ "$$k" = "$$ran" ] && continue; \
		echo "== NTKSVM_SIMD=$$k"; \
		NTKSVM_SIMD=$$k $(GO) test -count=1 $(ASMPKGS) || exit 1; \
	done

test-race:
	$(GO) test -race -short $(RACEPKGS)

# The arm64 test binaries (built together, one per package) run under qemu
# user-mode emulation, the NEON and the generic kernels of a package at the
# same time (emulation is the longest stage of make test; the two runs use
# both cores), each into its own log, printed in that order. Without qemu
# the stage is skipped with a note, except under CI (the CI variable set),
# where a missing qemu fails it.
test-arm64:
	@if ! command -v $(QEMU) >/dev/null; then \
		if [ -n "$$CI" ]; then echo "test-arm64: $(QEMU) not found and CI is set: install Debian package qemu-user-static"; exit 1; fi; \
		echo "test-arm64: skipped ($(QEMU) not found; install Debian package qemu-user-static to run it)"; exit 0; \
	fi; \
	mkdir -p $(BIN)/arm64; \
	GOARCH=arm64 $(GO) test -c -o $(BIN)/arm64/ $(ASMPKGS) || exit 1; \
	for p in $(ASMPKGS); do \
		n=$$(basename $$p); t=$(CURDIR)/$(BIN)/arm64/$$n.test; \
		(cd $$p && $(QEMU) $$t -test.short) > $(BIN)/$$n-arm64-auto.log 2>&1 & auto=$$!; \
		(cd $$p && NTKSVM_SIMD=generic $(QEMU) $$t -test.short) > $(BIN)/$$n-arm64-generic.log 2>&1 & gen=$$!; \
		wait $$auto; sa=$$?; wait $$gen; sg=$$?; \
		echo "== qemu arm64 $$p (auto)"; cat $(BIN)/$$n-arm64-auto.log; \
		echo "== qemu arm64 $$p (NTKSVM_SIMD=generic)"; cat $(BIN)/$$n-arm64-generic.log; \
		[ $$sa -eq 0 ] && [ $$sg -eq 0 ] || exit 1; \
	done

# The Slurm job files of cmd/ntksvm/deploy on a one-node Slurm cluster
# started on localhost (root; installs the Debian packages when missing;
# MNIST from $$NTKSVM_MNIST_DIR). See cmd/ntksvm/testdata/slurm/test.sh.
test-slurm: build
	cmd/ntksvm/testdata/slurm/test.sh $(BIN)/ntksvm

bench:
	$(GO) run ./cmd/ntksvm bench

fuzz:
	@for t in $$(grep -rhoE '^func Fuzz[A-Za-z0-9_]+' --include='*_test.go' . | sed 's/func //' | sort -u); do \
		p=$$(grep -rlE "^func $$t\(" --include='*_test.go' . | head -1 | xargs dirname); \
		echo "== $$t in $$p"; \
		$(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime 15s $$p || exit 1; \
	done

clean:
	rm -rf $(BIN)
