package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strings"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/output"
	"github.com/krender/krender/internal/testing/fleetgen"
)

// profileRender renders the fleet in dir to nowhere a few times under the
// CPU profiler: the same engine the CLI runs, so its profile says where
// krender's time goes.
func profileRender(dir, out string) error {
	e, err := action.Engine(filesys.Dir(dir), action.Options{Profile: fleetgen.Profile, Paths: []string{fleetgen.AppsDir}})
	if err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	defer pprof.StopCPUProfile()
	for range 3 {
		if _, err := output.WriteStream(e, io.Discard); err != nil {
			return err
		}
	}
	return nil
}

// share is one part of krender's CPU time.
type share struct {
	part    string
	percent string
}

// components are the functions whose cumulative share is reported; every
// stage's Apply is found by name, so new stages show up on their own.
var components = [][2]string{
	{"cloning (each tenant's copy of the templates, and copies stages make)", "manifest.(*Object).Clone"},
	{"substitution", "render.Substitute"},
	{"encoding (the yaml emitter)", "manifest.(*Encoder).Encode"},
	{"garbage collection in the background", "runtime.gcBgMarkWorker"},
}

// whereTimeGoes profiles a render of the fleet in dir and breaks its CPU
// samples down with `go tool pprof -top -cum`.
func whereTimeGoes(self, dir string) ([]share, error) {
	prof := filepath.Join(dir, "out", "cpu.prof")
	if _, err := child(dir, krenderGC, "", self, "profile", dir, prof); err != nil {
		return nil, err
	}
	text, err := exec.Command("go", "tool", "pprof", "-top", "-cum", "-nodecount=100000", "-nodefraction=0", "-edgefraction=0", prof).Output()
	if err != nil {
		return nil, fmt.Errorf("go tool pprof: %w", err)
	}
	cum := map[string]string{}
	var stages []string
	for _, line := range strings.Split(string(text), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || !strings.HasSuffix(f[4], "%") {
			continue
		}
		name := strings.Join(f[5:], " ")
		name = name[strings.LastIndex(name, "/")+1:] // package.(*Type).Method
		if _, seen := cum[name]; !seen {
			cum[name] = f[4]
			if strings.HasSuffix(name, ".(*Stage).Apply") {
				stages = append(stages, name)
			}
		}
	}
	var out []share
	for _, c := range components[:2] {
		out = append(out, share{c[0], cum[c[1]]})
	}
	for _, s := range stages {
		out = append(out, share{"stage " + strings.TrimSuffix(s, ".(*Stage).Apply"), cum[s]})
	}
	for _, c := range components[2:] {
		out = append(out, share{c[0], cum[c[1]]})
	}
	return out, nil
}
