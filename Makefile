# krender: `make demo` renders the bundled examples, `make test` runs every tier.
GO      ?= go
BIN     := $(CURDIR)/.cache/bin
export KRENDER_YQ := $(BIN)/yq

.PHONY: all build demo tools test test-short test-unit test-e2e bench clean

all: build

build:
	$(GO) build -o krender ./cmd/krender

demo: build
	./krender render -p profiles/dev.yaml templates

tools:
	hack/tools.sh

# Unit, golden, CLI and parity tests; tools they compare against must be present.
test-unit: tools
	$(GO) vet ./...
	KRENDER_REQUIRE_TOOLS=1 $(GO) test -count=1 ./...

# Quick loop: no tool builds, no API server.
test-short:
	$(GO) test -short ./...

test: test-unit test-e2e

test-e2e:
	@echo "e2e tier: not wired yet"

clean:
	rm -f krender
