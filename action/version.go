package action

import (
	"context"
	"runtime/debug"
	"strings"
)

// Version is `krender version`, the action: which build this is, from the
// build information Go stamps into the binary, so that a CI log ties
// rendered output to a revision.
type Version struct {
	// BuildInfo reads the build information; nil: debug.ReadBuildInfo.
	// Tests hand in builds of their own.
	BuildInfo func() (*debug.BuildInfo, bool)
}

func (v *Version) info() *debug.BuildInfo {
	read := v.BuildInfo
	if read == nil {
		read = debug.ReadBuildInfo
	}
	if bi, ok := read(); ok {
		return bi
	}
	return nil
}

// VersionResult is which build this is: what `krender version` prints,
// and what krender and krender-check compare at a hand-over.
type VersionResult struct {
	// Line is the version line: the module version `go install
	// module@version` stamps, or for a local build "(devel)" and the commit
	// it was built from, then the Go version.
	Line string
	// Module is what `go install ...@VERSION` takes for this build: its
	// module version, or latest for a local build.
	Module string
	// Source names the source this build came from: "revision <commit>" of
	// a clean checkout, or "version <v>" of `go install module@v`; "" when
	// the build does not know (-buildvcs=false, a worktree or tarball, a
	// modified checkout).
	Source string
}

// Run returns which build this is, from its build information alone; a
// context already done returns its cause.
func (v *Version) Run(ctx context.Context) (*VersionResult, error) {
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	bi := v.info()
	if bi == nil {
		return &VersionResult{Line: "krender (no build information)", Module: "latest"}, nil
	}
	return &VersionResult{Line: versionLine(bi), Module: moduleVersion(bi), Source: sourceOf(bi)}, nil
}

// versionLine is the version line of bi (VersionResult.Line).
func versionLine(bi *debug.BuildInfo) string {
	ver := bi.Main.Version
	if ver == "" {
		ver = "(devel)"
	}
	rev, modified := vcs(bi)
	out := "krender " + ver
	switch {
	case rev != "":
		out += " revision " + rev
		if modified {
			out += " (modified)"
		}
	case ver == "(devel)":
		// A worktree, a tarball or -buildvcs=false: go stamps no revision.
		out += " revision unknown"
	}
	return out + " " + bi.GoVersion
}

// moduleVersion is bi's VersionResult.Module.
func moduleVersion(bi *debug.BuildInfo) string {
	if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "latest"
}

// sourceOf is bi's VersionResult.Source.
func sourceOf(bi *debug.BuildInfo) string {
	rev, modified := vcs(bi)
	ver := bi.Main.Version
	switch {
	case rev != "" && !modified:
		return "revision " + rev
	case rev == "" && ver != "" && ver != "(devel)" && !strings.HasSuffix(ver, "+dirty"):
		return "version " + ver
	}
	return ""
}

// vcs is the revision a build was made from and whether its tree was
// modified.
func vcs(bi *debug.BuildInfo) (rev string, modified bool) {
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	return rev, modified
}
