package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/krender/krender/internal/testing/fleetgen"
	"github.com/krender/krender/internal/testing/ordinary"
	"github.com/krender/krender/internal/testing/testtool"
	"github.com/krender/krender/model/limits"
	"github.com/krender/krender/model/manifest"
)

// maxRSS is the peak resident memory the default limits allow an ordinary
// run (docs/limits.md, Peak memory).
const maxRSS = 1 << 30

// The default limits admit ordinary manifests up to the byte limits, within
// maxRSS: small Deployments up to limits.inputBytes (some 21,000 documents)
// and a fleet of 5,000 tenants of 42 objects, each run by the built binary
// with the defaults, its peak RSS read from rusage.
func TestDefaultLimitsAdmitOrdinaryAtScale(t *testing.T) {
	bin := testtool.Krender(t)
	t.Run("small Deployments at inputBytes", func(t *testing.T) {
		dir := t.TempDir()
		args, docs := smallDeployments(t, dir)
		writeFile(t, filepath.Join(dir, "profile.yaml"), []byte("vars: {}\n"))
		runAtScale(t, dir, append([]string{bin, "render", "-p", "profile.yaml"}, args...), docs)
	})
	t.Run("5000 tenants of 42 objects", func(t *testing.T) {
		dir := t.TempDir()
		f := fleetgen.Fleet{Apps: 14, Tenants: 5000}
		if err := f.Write(dir); err != nil {
			t.Fatal(err)
		}
		runAtScale(t, dir, []string{bin, "render", "-p", fleetgen.Profile, fleetgen.AppsDir}, f.Objects())
	})
}

// smallDeployments writes small Deployments, the densest ordinary YAML,
// up to limits.inputBytes in files of at most limits.fileBytes, and
// returns the files and how many documents they hold.
func smallDeployments(t *testing.T, dir string) (files []string, docs int) {
	t.Helper()
	d := limits.Defaults()
	for size := 0; size < d.InputBytes-1000; {
		text, n := ordinary.Fill(min(d.FileBytes, d.InputBytes-size), docs, ordinary.Deployment)
		name := fmt.Sprintf("deploy%d.yaml", len(files))
		writeFile(t, filepath.Join(dir, name), text)
		files, docs, size = append(files, name), docs+n, size+len(text)
	}
	if docs < 20_000 {
		t.Fatalf("%d documents: not the case docs/limits.md measures", docs)
	}
	return files, docs
}

// addressSpaceKiB is the address-space limit a CI job may run krender
// under (ulimit -v): 2 GiB.
const addressSpaceKiB = 2 << 20

// TestDensestAcceptedFitsTwoGiB: the inputs the default limits accept that
// take most memory render under a 2 GiB address-space limit, with the
// static binary `make build` makes. They are small Deployments up to
// limits.inputBytes and ConfigMaps of dense flow sequences up to
// limits.inputNodes, hashed; each for two tenants, so that the run holds
// the parsed templates and a unit's copy of them, the most copies
// templates this large are given (render's atOnce).
func TestDensestAcceptedFitsTwoGiB(t *testing.T) {
	bin := staticKrender(t)
	limited := func(args ...string) []string {
		return append([]string{"sh", "-c", fmt.Sprintf(`ulimit -v %d && exec "$0" "$@"`, addressSpaceKiB), bin}, args...)
	}
	const tenants = "tenants: {a: {}, b: {}}\n"
	t.Run("small Deployments at inputBytes", func(t *testing.T) {
		dir := t.TempDir()
		files, docs := smallDeployments(t, dir)
		writeFile(t, filepath.Join(dir, "profile.yaml"), []byte(tenants))
		runAtScale(t, dir, limited(append([]string{"render", "-p", "profile.yaml"}, files...)...), 2*docs)
	})
	t.Run("dense ConfigMaps at inputNodes", func(t *testing.T) {
		dir := t.TempDir()
		text, docs := denseConfigMaps(limits.Defaults())
		writeFile(t, filepath.Join(dir, "dense.yaml"), []byte(text))
		writeFile(t, filepath.Join(dir, "profile.yaml"), []byte(tenants))
		runAtScale(t, dir, limited("render", "-p", "profile.yaml", "dense.yaml"), 2*docs)
	})
}

// staticKrender builds krender as `make build` does, without cgo, whose C
// allocator reserves some 300 MB more address space.
func staticKrender(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("SKIP: -short: builds the krender binary")
	}
	bin := filepath.Join(t.TempDir(), "krender")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/krender/krender/cmd/krender")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building krender: %v\n%s", err, out)
	}
	return bin
}

// runAtScale runs krender in dir, its output to a file, and requires exit
// 0, want objects out and a peak RSS under maxRSS.
func runAtScale(t *testing.T, dir string, args []string, want int) {
	t.Helper()
	out, err := os.Create(filepath.Join(dir, "out.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var stderr bytes.Buffer
	// GNU time forks krender from a small process and reports its peak. The
	// test process's own rusage of a child cannot: Go starts children with
	// vfork, and Linux then counts the parent's resident memory (over 1 GiB
	// in a -race test binary) into the child's maxrss.
	peak := filepath.Join(dir, "peak-rss-kib")
	timed := append([]string{"-f", "%M", "-o", peak}, args...)
	cmd := exec.Command(testtool.Find(t, "KRENDER_GNU_TIME", []string{"/usr/bin/time"}, "the peak memory of a render"), timed...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, out, &stderr
	cmd.Env = append(os.Environ(), "GOGC=", "GOMEMLIMIT=") // krender's own memory settings
	if err := cmd.Run(); err != nil {
		t.Fatalf("krender %v: %v\n%s", args, err, stderr.Bytes())
	}
	kib, err := os.ReadFile(peak)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(kib)), 10, 64)
	if err != nil {
		t.Fatalf("GNU time's peak RSS %q: %v", kib, err)
	}
	rss := n << 10
	t.Logf("peak RSS %d MiB", rss>>20)
	if rss >= maxRSS {
		t.Errorf("peak RSS %d MiB, over %d MiB", rss>>20, maxRSS>>20)
	}
	if _, err := out.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	got := 0
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 64<<20) // a flow sequence prints on one line
	for sc.Scan() {
		if bytes.HasPrefix(sc.Bytes(), []byte("kind: ")) {
			got++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("%d objects out, want %d", got, want)
	}
}

func writeFile(t *testing.T, path string, text []byte) {
	t.Helper()
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Two files of ordinary Deployments, each under limits.fileBytes and
// together over limits.inputBytes (the shape that ended in "index out of
// range [-1]"): render, check and vars refuse them with the one error of
// the limit, in the first file, where the run crosses it.
func TestInputBytesAcrossLargeFiles(t *testing.T) {
	d := limits.Defaults()
	dir := t.TempDir()
	size := d.InputBytes + (d.FileBytes-d.InputBytes)/2 // 7 MiB: under fileBytes, two over inputBytes
	var first []byte
	for i, name := range []string{"a.yaml", "b.yaml"} {
		text, _ := ordinary.Fill(size, i*100_000, ordinary.Deployment)
		if len(text) > d.FileBytes || 2*len(text) <= d.InputBytes {
			t.Fatalf("%d bytes: not the case", len(text))
		}
		writeFile(t, filepath.Join(dir, name), text)
		if first == nil {
			first = text
		}
	}
	writeFile(t, filepath.Join(dir, "p.yaml"), []byte("vars: {}\n"))
	at := manifest.NewSource("a.yaml", first).PosAt(d.InputBytes)
	want := at.String() + ": the templates and fragments are larger than 6 MiB in all (limits.inputBytes; see docs/limits.md)\n"
	for _, cmd := range []string{"render", "check", "vars"} {
		out, errs, code := runIn(t, dir, cmd, "-p", "p.yaml", "a.yaml", "b.yaml")
		if code != 2 || out != "" || errs != want {
			t.Errorf("%s: exit %d, stdout %d bytes, stderr %q; want exit 2, no stdout, stderr %q", cmd, code, len(out), errs, want)
		}
	}
}
