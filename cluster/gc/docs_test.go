package gc

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// docsBlocks returns the fenced blocks without a language of docs/gc.md's
// "## Output" section, in order.
func docsBlocks(t *testing.T) []string {
	t.Helper()
	page, err := os.ReadFile("../../docs/gc.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(page), "\n## Output\n")
	if !ok {
		t.Fatal("docs/gc.md has no ## Output section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)\n```\n(.*?)```\n").FindAllStringSubmatch(section, -1) {
		blocks = append(blocks, m[1])
	}
	if len(blocks) < 3 {
		t.Fatalf("docs/gc.md's ## Output has %d sample blocks, want the report, the namespaces and the warning", len(blocks))
	}
	return blocks
}

// report is the text gc prints for s in namespace ns ("": -A).
func report(t *testing.T, s *Snapshot, ns string) string {
	t.Helper()
	r := NewReport(Plan(s), false)
	r.Scope(ns, s)
	var out bytes.Buffer
	if err := r.Write(&out, "text"); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestDocsSampleOutput: the sample output of docs/gc.md is what gc prints
// for the cluster it describes: line by line, in the order gc lists the
// objects (ConfigMaps, then Secrets, each by name, as the API server
// lists them); the summaries of a misspelled -n and of -A, with their
// counts taken as written; the warning for a missing name.
func TestDocsSampleOutput(t *testing.T) {
	blocks := docsBlocks(t)

	// shop: Deployment app names app-config-9tk4hbb2g6, which an earlier
	// rule gave the Deployment as owner; the old ReplicaSet app-7d9c names
	// app-config-5g2m7h8k9t; app-config-2b8ddgm6tf is named by nothing;
	// legacy-token-h7c2kd6gb5 has no newer version. Ten more versions need
	// nothing: five pinned by their Deployments, five owned by their
	// ReplicaSets already.
	dep, rsOld, rsNew := owner("Deployment", "app"), owner("ReplicaSet", "app-7d9c"), owner("ReplicaSet", "app-9f8e")
	s := &Snapshot{
		Hashed: []*Hashed{
			cm("app-config-2b8ddgm6tf", "app-config", -2, nil),
			cm("app-config-5g2m7h8k9t", "app-config", -1, nil),
			cm("app-config-9tk4hbb2g6", "app-config", 0, []Owner{dep}, dep.UID),
		},
		Referrers: []Referrer{uses(dep, "app-config-9tk4hbb2g6"), revision(rsOld, "app-config-5g2m7h8k9t"), revision(rsNew, "app-config-9tk4hbb2g6")},
	}
	for i := range 5 {
		d, rs := owner("Deployment", fmt.Sprintf("cart-%d", i)), owner("ReplicaSet", fmt.Sprintf("cart-%d-1", i))
		pinned, owned := fmt.Sprintf("cart-%d-config-new", i), fmt.Sprintf("cart-%d-config-old", i)
		s.Hashed = append(s.Hashed, cm(pinned, "cart-config", 0, nil), cm(owned, "cart-config", -1, []Owner{rs}, rs.UID))
		s.Referrers = append(s.Referrers, uses(d, pinned), revision(rs, owned))
	}
	legacy := cm("legacy-token-h7c2kd6gb5", "legacy-token", 0, nil)
	legacy.Kind = "Secret"
	s.Hashed = append(s.Hashed, legacy)
	if got := report(t, s, "shop"); got != blocks[0] {
		t.Errorf("docs/gc.md's sample report:\n%s\ngc prints for that cluster:\n%s", blocks[0], got)
	}

	// $ krender gc -n shpo; $ krender gc -A (the second run on a cluster
	// that needs nothing).
	var shown []string
	lines := strings.Split(strings.TrimSuffix(blocks[1], "\n"), "\n")
	for i := 0; i+1 < len(lines); i += 2 {
		cmd, want := lines[i], lines[i+1]
		var got string
		switch cmd {
		case "$ krender gc -n shpo":
			got = report(t, &Snapshot{}, "shpo")
		case "$ krender gc -A":
			again := &Snapshot{}
			for _, ns := range []string{"shop", "cart", "web", "ops"} {
				h := cm("config-"+ns, "config", 0, nil)
				h.Namespace = ns
				r := uses(owner("Deployment", ns), h.Name)
				r.Namespace, r.Refs[0].Namespace = ns, ns
				again.Hashed, again.Referrers = append(again.Hashed, h), append(again.Referrers, r)
			}
			// the counts as written: numbers stand for numbers
			want = regexp.MustCompile(`\d+`).ReplaceAllString(regexp.QuoteMeta(want), `\d+`)
			got = report(t, again, "")
			if !regexp.MustCompile("^" + want + "\n$").MatchString(got) {
				t.Errorf("%s: docs/gc.md shows %q, gc prints %q", cmd, lines[i+1], got)
			}
			shown = append(shown, cmd)
			continue
		default:
			t.Fatalf("docs/gc.md's sample %q is not one this test knows", cmd)
		}
		if got != want+"\n" {
			t.Errorf("%s: docs/gc.md shows %q, gc prints %q", cmd, want, got)
		}
		shown = append(shown, cmd)
	}
	if len(shown) != 2 {
		t.Errorf("docs/gc.md shows %q, want -n shpo and -A", shown)
	}

	// The warning for a name what is applied uses and the cluster lacks.
	app2 := owner("Deployment", "app2")
	missing := MaybeMissing(&Snapshot{Referrers: []Referrer{uses(app2, "app-config-cccc244c5b")}}, "shop")
	if len(missing) != 1 {
		t.Fatalf("%d missing, want 1", len(missing))
	}
	if got := "krender: warning: " + missing[0].String() + "\n"; got != blocks[2] {
		t.Errorf("docs/gc.md's warning:\n%s\ngc prints:\n%s", blocks[2], got)
	}
}
