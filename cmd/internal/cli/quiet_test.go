package cli

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestQuietRenders: rendering part of the templates, or someone else's
// manifests, with a profile whose variables they do not use is no mistake,
// so render prints nothing on stderr. The README's Quick start and `make
// demo` are read from the files themselves, so that the test follows them.
func TestQuietRenders(t *testing.T) {
	const unrelated = "cmd/internal/cli/testdata/quiet/profile.yaml"
	_, quick := readmeQuickStart(t)
	makefile, err := os.ReadFile("../../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	demo := regexp.MustCompile(`(?m)^demo:.*\n\t\./krender (.*)$`).FindSubmatch(makefile)
	if demo == nil {
		t.Fatal("the Makefile has no demo target running ./krender")
	}
	for _, c := range []struct{ name, args string }{
		{"Quick start", quick},
		{"make demo", string(demo[1])},
		{"Quick start, -v", quick + " -v"},
		// public-manifest-like fixtures with a profile that defines none of
		// their variables
		{"prometheus rules", "render -p " + unrelated + " testdata/realworld/prometheus-rules/manifests"},
		{"ingress-nginx", "render -p " + unrelated + " testdata/realworld/ingress-nginx/manifests"},
		{"grafana dashboards", "render -p " + unrelated + " testdata/realworld/grafana-dashboards/manifests"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := runChecked(t, strings.Fields(c.args), nil, &out, &errb, inTree("../../.."), noEnv)
			verbose := strings.HasSuffix(c.args, " -v")
			if code != 0 || out.Len() == 0 {
				t.Fatalf("krender %s: exit %d, %d bytes out:\n%s", c.args, code, out.Len(), errb.String())
			}
			if !verbose && errb.Len() > 0 {
				t.Fatalf("krender %s printed on stderr:\n%s", c.args, errb.String())
			}
			if verbose && !strings.Contains(errb.String(), "info: variable PUBLIC_HOST is defined but no template of this render references it") {
				t.Fatalf("krender %s: -v shows the unused variable as an info note; stderr:\n%s", c.args, errb.String())
			}
		})
	}
}

// readmeQuickStart returns the README and the arguments of its Quick
// start's `./krender render -p profiles/dev.yaml ...` line.
func readmeQuickStart(t *testing.T) ([]byte, string) {
	t.Helper()
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	quick := regexp.MustCompile(`\./krender (render -p profiles/dev\.yaml [^\n|#]*)`).FindSubmatch(readme)
	if quick == nil {
		t.Fatal("README's Quick start has no `./krender render -p profiles/dev.yaml ...` line")
	}
	return readme, string(quick[1])
}
