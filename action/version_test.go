package action

import (
	"context"
	"runtime/debug"
	"testing"
)

// buildInfo hands a Version the build information of a binary built so.
func buildInfo(bi *debug.BuildInfo, ok bool) func() (*debug.BuildInfo, bool) {
	return func() (*debug.BuildInfo, bool) { return bi, ok }
}

// versionOf is Version's result for the build information read gives.
func versionOf(t *testing.T, read func() (*debug.BuildInfo, bool)) *VersionResult {
	t.Helper()
	res, err := (&Version{BuildInfo: read}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestVersionString: the line names the module version, or "(devel)" and
// the revision (marked modified), or says the revision is unknown.
func TestVersionString(t *testing.T) {
	info := func(version string, settings ...debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/krender/krender", Version: version}, Settings: settings}
	}
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "913afa96d32f900d1e4106209af840b84fb4e582"}
	for _, c := range []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{info("v1.4.0"), "krender v1.4.0 go1.26.8"},
		{info("(devel)", rev), "krender (devel) revision 913afa96d32f900d1e4106209af840b84fb4e582 go1.26.8"},
		{info("(devel)", rev, debug.BuildSetting{Key: "vcs.modified", Value: "true"}), "krender (devel) revision 913afa96d32f900d1e4106209af840b84fb4e582 (modified) go1.26.8"},
		{info(""), "krender (devel) revision unknown go1.26.8"},
	} {
		if got := versionOf(t, buildInfo(c.bi, true)).Line; got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
	if got := versionOf(t, buildInfo(nil, false)).Line; got != "krender (no build information)" {
		t.Errorf("no build info: %q", got)
	}
}

// TestVersionModule: `go install ...@VERSION` takes a release's version,
// and latest for a local build.
func TestVersionModule(t *testing.T) {
	for _, c := range []struct{ version, want string }{{"v1.4.0", "v1.4.0"}, {"(devel)", "latest"}, {"", "latest"}} {
		bi := &debug.BuildInfo{Main: debug.Module{Version: c.version}}
		if got := versionOf(t, buildInfo(bi, true)).Module; got != c.want {
			t.Errorf("%q: got %q, want %q", c.version, got, c.want)
		}
	}
	if got := versionOf(t, buildInfo(nil, false)).Module; got != "latest" {
		t.Errorf("no build info: %q", got)
	}
}

// TestVersionSource: a build names its source where it knows it, whether `make
// build` in a clone (a pseudo-version and the revision) or `go install
// module@version`; not for a modified checkout, -buildvcs=false, a
// worktree or `go install ./cmd/...` there ("(devel)", no revision).
func TestVersionSource(t *testing.T) {
	info := func(version string, settings ...debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/krender/krender", Version: version}, Settings: settings}
	}
	const commit = "9c5ccef0a5e1d2b3c4d5e6f708192a3b4c5d6e7f"
	rev := debug.BuildSetting{Key: "vcs.revision", Value: commit}
	modified := debug.BuildSetting{Key: "vcs.modified", Value: "true"}
	clean := debug.BuildSetting{Key: "vcs.modified", Value: "false"}
	for _, c := range []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{info("v0.0.0-20261201120000-9c5ccef0a5e1", rev, clean), "revision " + commit},
		{info("(devel)", rev), "revision " + commit},
		{info("v0.0.0-20261201120000-9c5ccef0a5e1+dirty", rev, modified), ""},
		{info("(devel)"), ""},
		{info(""), ""},
		{info("v1.4.0"), "version v1.4.0"},
		{info("v1.4.0+dirty"), ""},
	} {
		if got := versionOf(t, buildInfo(c.bi, true)).Source; got != c.want {
			t.Errorf("%s %v: got %q, want %q", c.bi.Main.Version, c.bi.Settings, got, c.want)
		}
	}
	if got := versionOf(t, buildInfo(nil, false)).Source; got != "" {
		t.Errorf("no build info: %q", got)
	}
}
