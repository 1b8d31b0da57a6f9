package gc

import (
	"context"
	"github.com/krender/krender/files/filesys"
	"io"
	"reflect"
	"testing"
	"testing/fstest"
)

// Collect hands its Collector the hash stage's table and the kinds of the
// profile's hash.references; without a profile, the built-in table alone;
// a profile it cannot read stops it before the cluster is touched.
func TestCollectBuildsTheTable(t *testing.T) {
	fsys := fstest.MapFS{"profile.yaml": {Data: []byte(`vars: {}
hash:
  references:
    - kind: KafkaConnector
      group: kafka.strimzi.io
      path: spec/config/secretRef/name
      to: Secret
`)}}
	var got []Options
	record := func(_ context.Context, o Options, _ io.Writer) error { got = append(got, o); return nil }
	c := Collect{Options: Options{Namespace: "shop"}, Profile: "profile.yaml", FS: filesys.NewMem(fsys), Collector: record}
	for range 2 { // a second run lists the same kinds, not twice as many
		if err := c.Run(context.Background(), io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	want := []Kind{{Group: "kafka.strimzi.io", Kind: "KafkaConnector"}}
	for _, o := range got {
		if !reflect.DeepEqual(o.Custom, want) || o.Table == nil || o.Namespace != "shop" {
			t.Fatalf("collector got Custom %v, Table %v, Namespace %q; want %v, a table, shop", o.Custom, o.Table, o.Namespace, want)
		}
	}
	got = nil
	if err := (&Collect{FS: filesys.NewMem(fsys), Collector: record}).Run(context.Background(), io.Discard); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Custom != nil || got[0].Table == nil {
		t.Fatalf("without a profile: %+v", got)
	}
	got = nil
	if err := (&Collect{Profile: "missing.yaml", FS: filesys.NewMem(fsys), Collector: record}).Run(context.Background(), io.Discard); err == nil || got != nil {
		t.Fatalf("missing profile: err %v, collector called %d times", err, len(got))
	}
}
