package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/krender/krender/internal/testing/fleetgen"
	"github.com/krender/krender/internal/testing/ordinary"
	"github.com/krender/krender/internal/testing/testtool"
	"github.com/krender/krender/model/manifest"
)

// maxRSS is the peak resident memory the default limits allow an ordinary
// run (docs/limits.md, Peak memory).
const maxRSS = 1 << 30

// The default limits admit ordinary manifests up to the byte limits, within
// maxRSS: two files of small Deployments at limits.fileBytes (16 MiB, some
// 55,000 documents) and a fleet of 5,000 tenants of 42 objects, each run
// by the built binary with the defaults, its peak RSS read from rusage.
func TestDefaultLimitsAdmitOrdinaryAtScale(t *testing.T) {
	bin := testtool.Krender(t)
	t.Run("16 MiB of small Deployments", func(t *testing.T) {
		dir := t.TempDir()
		d := manifest.DefaultLimits()
		args := []string{"render", "-p", "profile.yaml"}
		docs := 0
		for f := range d.InputBytes / d.FileBytes {
			text, n := ordinary.Fill(d.FileBytes, docs, ordinary.Deployment)
			name := fmt.Sprintf("deploy%d.yaml", f)
			writeFile(t, filepath.Join(dir, name), text)
			args, docs = append(args, name), docs+n
		}
		if docs < 55_000 {
			t.Fatalf("%d documents: not the case docs/limits.md measures", docs)
		}
		writeFile(t, filepath.Join(dir, "profile.yaml"), []byte("vars: {}\n"))
		runAtScale(t, bin, dir, args, docs)
	})
	t.Run("5000 tenants of 42 objects", func(t *testing.T) {
		dir := t.TempDir()
		f := fleetgen.Fleet{Apps: 14, Tenants: 5000}
		if err := f.Write(dir); err != nil {
			t.Fatal(err)
		}
		runAtScale(t, bin, dir, []string{"render", "-p", fleetgen.Profile, fleetgen.AppsDir}, f.Objects())
	})
}

// runAtScale runs krender in dir, its output to a file, and requires exit
// 0, want objects out and a peak RSS under maxRSS.
func runAtScale(t *testing.T, bin, dir string, args []string, want int) {
	t.Helper()
	out, err := os.Create(filepath.Join(dir, "out.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, out, &stderr
	cmd.Env = append(os.Environ(), "GOGC=", "GOMEMLIMIT=") // krender's own memory settings
	if err := cmd.Run(); err != nil {
		t.Fatalf("krender %v: %v\n%s", args, err, stderr.Bytes())
	}
	rss := int64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) << 10 // KiB on Linux
	t.Logf("peak RSS %d MiB", rss>>20)
	if rss >= maxRSS {
		t.Errorf("peak RSS %d MiB, over %d MiB", rss>>20, maxRSS>>20)
	}
	if _, err := out.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	got := 0
	sc := bufio.NewScanner(out)
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
