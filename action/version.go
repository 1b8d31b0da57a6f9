package action

import (
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

// Run returns the version line: the module version `go install
// module@version` stamps, or for a local build "(devel)" and the commit it
// was built from, then the Go version.
func (v *Version) Run() string {
	bi := v.info()
	if bi == nil {
		return "krender (no build information)"
	}
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

// Module is what `go install ...@VERSION` takes for this build: its module
// version, or latest for a local build.
func (v *Version) Module() string {
	if bi := v.info(); bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "latest"
}

// Source names the source this build came from: "revision <commit>" of a
// clean checkout, or "version <v>" of `go install module@v`; "" when the
// build does not know (-buildvcs=false, a worktree or tarball, a modified
// checkout). krender and krender-check compare it at a hand-over.
func (v *Version) Source() string {
	bi := v.info()
	if bi == nil {
		return ""
	}
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
