package crd

import (
	"fmt"
	"strings"
	"testing"
)

// TestValidateOncePerContent: the catalog validates a custom resource once
// per distinct content and namespace, and the problems it remembers point
// into each copy as a fresh validation of that copy would.
func TestValidateOncePerContent(t *testing.T) {
	c, err := NewCatalog(parse(t, widgetCRD))
	if err != nil {
		t.Fatal(err)
	}
	bad := widget("  maxReplica: 2\n  minReplicas: 5\n  maxReplicas: 2\n  mode: slow\n")
	good := widget("  mode: fast\n")
	// The same content at other lines and columns, in other files' places.
	text := strings.Join([]string{bad, "# moved down\n\n" + bad, good, bad, good}, "---\n")
	objs := parse(t, text)
	cases := []struct {
		i  int
		ns string
	}{{0, "default"}, {1, "default"}, {2, "default"}, {3, "default"}, {4, "default"}, {3, "other"}, {0, "other"}}
	for _, tc := range cases {
		o := objs[tc.i]
		d := c.Lookup(nil, o)
		got, err := c.Validate(d, o, tc.ns)
		if err != nil {
			t.Fatal(err)
		}
		want, err := d.Validate(o, tc.ns)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := describe(got), describe(want); g != w {
			t.Errorf("object %d in %s: remembered\n%s\nfresh\n%s", tc.i, tc.ns, g, w)
		}
		for k := range got {
			if got[k].Node != want[k].Node {
				t.Errorf("object %d: problem %q points at another object's node", tc.i, got[k].Msg)
			}
		}
		if tc.i == 0 && len(got) < 2 {
			t.Fatalf("the bad widget has %d problems: %s", len(got), describe(got))
		}
	}
	// bad and good in default, bad in other: three distinct.
	if n := c.validations.Load(); n != 3 {
		t.Errorf("%d validations ran for 3 distinct (content, namespace) pairs", n)
	}
}

func describe(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%d %d:%d %s [%s]\n", p.Kind, p.Node.Line, p.Node.Column, p.Msg, p.Path)
	}
	return b.String()
}
