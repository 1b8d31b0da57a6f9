package gc

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/files/filesys"

	gcplan "github.com/krender/krender/cluster/gc"
)

const kafkaProfile = `vars: {}
hash:
  references:
    - kind: KafkaConnector
      group: kafka.strimzi.io
      path: spec/config/secretRef/name
      to: Secret
`

// recorder is a Collector that keeps the Options it was given and returns
// report.
func recorder(got *[]gcplan.Options, report *gcplan.Report) Collector {
	return func(_ context.Context, o gcplan.Options) (*gcplan.Report, error) {
		*got = append(*got, o)
		return report, nil
	}
}

// Collect hands its Collector the hash stage's table and the kinds of the
// profile's hash.references; without a profile, the built-in table alone;
// a profile it cannot read stops it before the cluster is touched. Its
// Result is the Collector's report, unprinted.
func TestCollectBuildsTheTable(t *testing.T) {
	fsys := fstest.MapFS{"profile.yaml": {Data: []byte(kafkaProfile)}}
	var got []gcplan.Options
	report := &gcplan.Report{Namespace: "shop"}
	c := Collect{Options: gcplan.Options{Namespace: "shop"}, Output: "text", Profile: "profile.yaml", FS: filesys.NewMem(fsys), Collector: recorder(&got, report)}
	for range 2 { // a second run lists the same kinds, not twice as many
		res, err := c.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if res.Report != report {
			t.Fatalf("Result.Report %+v, want the collector's", res.Report)
		}
	}
	want := []gcplan.Kind{{Group: "kafka.strimzi.io", Kind: "KafkaConnector"}}
	for _, o := range got {
		if !reflect.DeepEqual(o.Custom, want) || o.Table == nil || o.Namespace != "shop" {
			t.Fatalf("collector got Custom %v, Table %v, Namespace %q; want %v, a table, shop", o.Custom, o.Table, o.Namespace, want)
		}
	}
	got = nil
	if _, err := (&Collect{Output: "json", FS: filesys.NewMem(fsys), Collector: recorder(&got, report)}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Custom != nil || got[0].Table == nil {
		t.Fatalf("without a profile: %+v", got)
	}
	got = nil
	if res, err := (&Collect{Output: "text", Profile: "missing.yaml", FS: filesys.NewMem(fsys), Collector: recorder(&got, report)}).Run(context.Background()); err == nil || res != nil || got != nil {
		t.Fatalf("missing profile: result %v, err %v, collector called %d times", res, err, len(got))
	}
}

// Check refuses -o other than text and json, and -n with -A; Run checks
// first, so the cluster is never asked.
func TestCollectCheckRefusesFlags(t *testing.T) {
	for _, c := range []struct {
		c    Collect
		want string
	}{
		{Collect{Output: "yaml"}, `-o "yaml": want text or json`},
		{Collect{}, `-o "": want text or json`},
		{Collect{Output: "text", Options: gcplan.Options{Namespace: "shop", AllNamespaces: true}}, "-n shop and -A: give one (a namespace, or all of them)"},
	} {
		if err := c.c.Check(); err == nil || err.Error() != c.want {
			t.Errorf("Check(%+v) = %v, want %q", c.c, err, c.want)
		}
		var got []gcplan.Options
		c.c.Collector = recorder(&got, &gcplan.Report{})
		if _, err := c.c.Run(context.Background()); err == nil || err.Error() != c.want || got != nil {
			t.Errorf("Run(%+v) = %v after %d collections, want %q and none", c.c, err, len(got), c.want)
		}
	}
	for _, ok := range []Collect{{Output: "text"}, {Output: "json", Options: gcplan.Options{AllNamespaces: true}}, {Output: "text", Options: gcplan.Options{Namespace: "shop"}}} {
		if err := ok.Check(); err != nil {
			t.Errorf("Check(%+v) = %v", ok, err)
		}
	}
}

// The files the profile names must lie within the root: RootDir when
// given, else the default root; LoadRestrictor none lifts the check, an
// unknown one is refused. Without a profile neither is read.
func TestCollectResolvesTheRoot(t *testing.T) {
	fsys := fstest.MapFS{
		"repo/profile.yaml": {Data: []byte("extends: ../base.yaml\n")},
		"base.yaml":         {Data: []byte(kafkaProfile)},
	}
	run := func(c Collect) ([]gcplan.Options, error) {
		var got []gcplan.Options
		c.FS, c.Output, c.Collector = filesys.NewMem(fsys), "text", recorder(&got, &gcplan.Report{})
		_, err := c.Run(context.Background())
		return got, err
	}
	for _, c := range []Collect{{Profile: "repo/profile.yaml"}, {Profile: "repo/profile.yaml", RootDir: "."}, {Profile: "repo/profile.yaml", RootDir: "repo", LoadRestrictor: "none"}} {
		if got, err := run(c); err != nil || len(got) != 1 || len(got[0].Custom) != 1 {
			t.Errorf("root %q, %q: %v, %+v", c.RootDir, c.LoadRestrictor, err, got)
		}
	}
	if got, err := run(Collect{Profile: "repo/profile.yaml", RootDir: "repo"}); err == nil || !strings.Contains(err.Error(), "is outside the root repo") || got != nil {
		t.Errorf("a file the profile names outside --root: %v", err)
	}
	if _, err := run(Collect{Profile: "repo/profile.yaml", LoadRestrictor: "loose"}); err == nil || !strings.Contains(err.Error(), `"loose"`) {
		t.Errorf("--load-restrictor loose: %v", err)
	}
	if _, err := run(Collect{RootDir: "elsewhere", LoadRestrictor: "loose"}); err != nil {
		t.Errorf("without -p, --root and --load-restrictor are not read: %v", err)
	}
}
