package cli

import (
	"os/exec"
	"path/filepath"
	"strings"
)

// Process is what main hands the command line of its own process: the
// environment and the collector's process-wide settings. The command line
// reads no variable and sets no setting of the process itself, so a test
// that runs it in-process hands it a list and recorders, and leaves the
// test binary as it found it.
type Process struct {
	// Environ is the environment as os.Environ lists it: --set-env,
	// GOGC, GOMEMLIMIT and KRENDER_DEBUG are read from it, and a command
	// handed over to krender-check gets it whole.
	Environ []string
	// SetGCPercent and SetMemoryLimit are runtime/debug's; nil leaves the
	// setting alone.
	SetGCPercent   func(int) int
	SetMemoryLimit func(int64) int64
}

// Env is an environment as os.Environ lists it, NAME=VALUE.
type Env []string

// Lookup reads one variable; the first of a repeated name counts, as in
// os.LookupEnv.
func (e Env) Lookup(name string) (string, bool) {
	for _, kv := range e {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

// collector is what a command may still change of the collector once
// tuneGC has set it: nil where the user's GOGC or GOMEMLIMIT decides, or
// where main handed no setter (a test's host).
type collector struct {
	// memoryLimit sets the soft memory limit as the actions learn what a
	// run needs (action.Options.MemoryLimit).
	memoryLimit func(int64)
	// gcPercent sets GOGC for a command whose heap differs from render's
	// (diff: diffGCPercent).
	gcPercent func(int)
	// gogc is the GOGC tuneGC set, 0 where the user's decides.
	gogc int
}

// renderGCPercent is GOGC where the user sets none (tuneGC).
const renderGCPercent = 200

// tuneGC lets the heap grow to three times the live heap (GOGC=200), or to
// the soft limit when that comes first. The live heap stays small (a few
// tenants and the held-back output) and the garbage dies young, so
// collections are cheap; what costs is new memory, each page of which the
// kernel faults in. At 100 tenants of the bench fleet GOGC=1000 took 30%
// more CPU time than 200 and twice the peak RSS; 100 costs the same CPU as
// 200 at small fleets and 5% more at 500 tenants. The limit then follows
// the tenants the engine holds at once (action.Options.MemoryLimit), and a
// command may choose its own GOGC: the hooks returned. GOGC and
// GOMEMLIMIT, when set, are the user's.
func (p Process) tuneGC(env LookupEnv) collector {
	var c collector
	if gogc, _ := env("GOGC"); gogc == "" && p.SetGCPercent != nil {
		p.SetGCPercent(renderGCPercent)
		c.gcPercent, c.gogc = func(n int) { p.SetGCPercent(n) }, renderGCPercent
	}
	if limit, _ := env("GOMEMLIMIT"); limit != "" || p.SetMemoryLimit == nil {
		return c
	}
	// Until the engine knows its units: parsing a hostile file near the
	// limits would otherwise grow to three times its live heap.
	p.SetMemoryLimit(128 << 20)
	c.memoryLimit = func(n int64) { p.SetMemoryLimit(n) }
	return c
}

// lookPath finds an executable named name on env's PATH, as exec.LookPath
// does on the process's own: a relative entry (".", "") is skipped, which
// is exec.LookPath's ErrDot refusal.
func lookPath(env LookupEnv, name string) (string, bool) {
	path, _ := env("PATH")
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		// A path with a separator is checked as it is: PATH is not read.
		if p, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
			return p, true
		}
	}
	return "", false
}
