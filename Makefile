# krender: `make demo` renders the bundled examples, `make test` runs every tier.
GO      ?= go
BIN     := $(CURDIR)/.cache/bin
export KRENDER_YQ := $(BIN)/yq
# A kubectl built by hack/kube-apiserver.sh (only where the machine has none).
export PATH := $(PATH):$(CURDIR)/.cache/e2e/bin

.PHONY: all build demo tools generate verify-generated test test-short test-unit test-e2e e2e-build e2e-up e2e-down bench clean fuzz fuzz-run

all: build

# Static: the C allocator of a cgo build reserves some 300 MB more address
# space, which counts against a CI job's address-space limit.
build:
	CGO_ENABLED=0 $(GO) build -buildvcs=auto -o . ./cmd/krender ./cmd/krender-check

demo: build
	./krender render -p profiles/dev.yaml templates

tools:
	hack/tools.sh

# Every generated file (zz_*.go, profiles/profile.schema.json, the layer
# table in docs/architecture.md) from its generator.
generate:
	GO=$(GO) hack/update-generated.sh

# Fails when make generate would change the tree.
verify-generated:
	GO=$(GO) hack/verify-generated.sh

# Unit, golden, CLI and parity tests; tools they compare against must be present.
test-unit: tools verify-generated
	$(GO) vet ./...
	# -tags e2e: every file, the e2e tier's too (none is left out by the tag).
	$(BIN)/staticcheck -tags e2e ./...
	KRENDER_REQUIRE_TOOLS=1 $(GO) test -count=1 -timeout 30m ./...
	# Tenants render concurrently: the race detector over the packages that run them.
	$(GO) test -race -count=1 -timeout 30m ./render/... ./files/output/... ./cmd/... ./cmd/internal/cli/... ./lint/check/...
	$(MAKE) fuzz-run FUZZTIME=$(FUZZTIME_SHORT) FUZZMINIMIZE=2s

# Go native fuzzing (docs/fuzzing.md): package:target:baseline. Seeds and
# every failure found live in the package's testdata/fuzz/<target>/; plain
# `go test` replays them. A target first runs its corpus to gather coverage
# (its baseline) and only then tries new inputs, and -fuzztime counts from
# the start: each target runs for its baseline (seconds, as measured on two
# busy cores, with room) plus FUZZTIME (seconds) of fuzzing.
FUZZ := \
	./render/subst/shellformat:FuzzShellFormat:10 \
	./render/subst/shellformat:FuzzDrone:10 \
	./files/loader:FuzzProfile:10 \
	./cmd/internal/cli:FuzzRender:20 \
	./render/inject/yqexpr:FuzzPlan:10 \
	./render/contenthash:FuzzStringDataSum:20 \
	./render/inject:FuzzFill:30 \
	./model/limits:FuzzTextBounds:10 \
	./model/limits:FuzzBudget:10 \
	./model/manifest:FuzzEmitter:10 \
	./lint/crd:FuzzValidate:20 \
	./lint/fieldcheck:FuzzFastPath:90
# The fuzzers run on Go 1.27: Go 1.26's fuzzing coordinator can report the
# end of -fuzztime as a failure, "context deadline exceeded" with no input
# written, when a worker is mid-input on busy cores (golang/go#75804, fixed
# in Go 1.27 only). The go command fetches that toolchain from the proxy
# once; the module itself still builds with the go line of go.mod.
FUZZ_GO ?= GOTOOLCHAIN=go1.27.1 $(GO)
FUZZTIME_SHORT ?= 15
FUZZTIME ?= 600
FUZZMINIMIZE ?= 30s

# Each fuzzer in turn for its baseline and FUZZTIME; a failure stops with its
# input written to testdata/fuzz/ (commit it with the fix).
fuzz-run:
	@for t in $(FUZZ); do \
		pkg=$${t%%:*}; rest=$${t#*:}; name=$${rest%%:*}; secs=$$(( $${rest#*:} + $(FUZZTIME) )); \
		echo "fuzzing $$name ($$pkg) for $${secs}s, up to $${rest#*:}s of them its baseline"; \
		$(FUZZ_GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $${secs}s -fuzzminimizetime $(FUZZMINIMIZE) $$pkg || exit 1; \
	done

# Longer: 10 minutes per fuzzer past its baseline unless FUZZTIME says
# otherwise (in seconds).
fuzz: fuzz-run

# Quick loop: no tool builds, no API server.
test-short:
	$(GO) test -short ./...

test: test-unit test-e2e

# End-to-end: rendered output applied to a real etcd + kube-apiserver, with
# kube-controller-manager's garbage collector and workload controllers, on
# 127.0.0.1, built from the Go module proxy into .cache/e2e (first build ~7 min).
e2e-build:
	hack/kube-apiserver.sh build

test-e2e: e2e-build tools
	$(GO) test -tags e2e -count=1 -timeout 30m ./e2e/... ./cluster/client/...

# For a quick loop: keep a server up and point the tests at it with
# KRENDER_E2E_KUBECONFIG=$(CURDIR)/.cache/e2e/run/kubeconfig.
e2e-up: e2e-build
	hack/kube-apiserver.sh up

e2e-down:
	hack/kube-apiserver.sh down

# Side-by-side timing against the shell pipeline, kubectl kustomize and a
# parse+emit floor; writes BENCHMARKS.md and its chart, BENCHMARKS.svg. Not
# part of `make test`: it takes minutes. BEFORE=<git ref> also builds krender
# at that ref (krender-check too where the ref has it) and measures it
# alternately with this build: `make bench BEFORE=main~5`. The before build
# gets no VCS stamp: its tree sits inside this repository, whose revision is
# not the ref's.
BEFORE ?=
BEFORE_SRC := $(CURDIR)/.cache/bench/before-src
BEFORE_BIN := $(CURDIR)/.cache/bench/before
bench: tools build
	$(GO) build -o $(BIN)/krender-bench ./hack/bench
ifneq ($(BEFORE),)
	rm -rf $(BEFORE_SRC) $(BEFORE_BIN)
	mkdir -p $(BEFORE_SRC) $(BEFORE_BIN)
	git archive --format=tar $(BEFORE) | tar -x -C $(BEFORE_SRC)
	cd $(BEFORE_SRC) && CGO_ENABLED=0 $(GO) build -buildvcs=false -o $(BEFORE_BIN)/ ./cmd/...
endif
	$(BIN)/krender-bench -krender ./krender -yq $(BIN)/yq \
		$(if $(BEFORE),-before $(BEFORE_BIN)/krender -before-name "$(BEFORE) ($$(git rev-parse --short $(BEFORE)^{commit}))") \
		$(BENCH_FLAGS)

clean:
	rm -f krender krender-check
