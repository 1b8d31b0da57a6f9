package diff

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/lint/validator"
	"github.com/krender/krender/lint/verdict"
)

const profile = "vars: {TAG: \"1\"}\n"

func repoOf(cm, deploy string) fstest.MapFS {
	return fstest.MapFS{
		"p.yaml":     {Data: []byte(profile)},
		"t/cm.yaml":  {Data: []byte(cm)},
		"t/web.yaml": {Data: []byte(deploy)},
	}
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  replicas: REPLICAS
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: "registry.example.com/web:${TAG}"}]
`

func cm(v string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags}\ndata: {level: " + v + "}\n"
}

// run diffs without the API server's code (the lean diff).
func run(t *testing.T, base, head fstest.MapFS) (*Result, error) {
	t.Helper()
	return runWith(t, base, head, nil)
}

// runWith diffs with the validator v.
func runWith(t *testing.T, base, head fstest.MapFS, v verdict.Validator) (*Result, error) {
	t.Helper()
	d := &Diff{Options: action.Options{Paths: []string{"t"}}, Profiles: []string{"p.yaml"}, Head: filesys.NewMem(head), Base: filesys.NewMem(base), BaseName: "main", Validator: v}
	return d.Run(context.Background())
}

// TestLeanSettlesWhatTheFieldsSettle: without the API server's code, a
// mutable ConfigMap's data and a workload's labels are judged; a change
// the API server must judge (replicas, a template) asks for it.
func TestLeanSettlesWhatTheFieldsSettle(t *testing.T) {
	dep := func(r string) string { return replace(deployment, "REPLICAS", r) }
	res, err := run(t, repoOf(cm("info"), dep("2")), repoOf(cm("debug"), strings.Replace(dep("2"), "labels: {app: web}}", "labels: {app: web, team: a}}", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 2 || res.Changes[0].Reasons[0] != "key level changed" || res.Changes[1].Verdict() != None {
		t.Fatalf("got %+v", res.Changes)
	}
	if _, err := run(t, repoOf(cm("info"), dep("2")), repoOf(cm("info"), dep("3"))); !errors.Is(err, ErrNeedsValidator) {
		t.Fatalf("replicas changed: %v, want ErrNeedsValidator", err)
	}
	res, err = run(t, repoOf(cm("info"), dep("2")), repoOf(cm("info"), dep("2")))
	if err != nil || len(res.Changes) != 0 {
		t.Fatalf("the same on both sides: %+v, %v", res, err)
	}
}

func replace(s, old, new string) string { return strings.ReplaceAll(s, old, new) }

// fleetRepo is a profile whose tenants (in the order given) each set LEVEL,
// and a ConfigMap that shows it.
func fleetRepo(tenants []string, level func(string) string) fstest.MapFS {
	var p strings.Builder
	p.WriteString("vars: {TAG: \"1\"}\ntenants:\n")
	for _, t := range tenants {
		p.WriteString("  " + t + ":\n    vars: {LEVEL: " + level(t) + "}\n")
	}
	repo := repoOf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags}\ndata:\n  level: ${LEVEL}\n", replace(deployment, "REPLICAS", "2"))
	repo["p.yaml"] = &fstest.MapFile{Data: []byte(p.String())}
	return repo
}

// TestTenantsInAnotherOrderAndOnOneSide: the two sides keep step whatever
// order their profiles list their tenants in and however many tenants only
// one side has; each tenant is compared with its own.
func TestTenantsInAnotherOrderAndOnOneSide(t *testing.T) {
	var shared, headOnly, baseOnly []string
	for i := range 12 {
		shared = append(shared, fmt.Sprintf("s%02d", i))
		headOnly = append(headOnly, fmt.Sprintf("h%02d", i))
		baseOnly = append(baseOnly, fmt.Sprintf("b%02d", i))
	}
	headTenants := append(slices.Clone(headOnly), shared...)
	baseTenants := slices.Concat(baseOnly, shared)
	slices.Reverse(baseTenants)
	// Odd shared tenants change their level.
	odd := func(t string) bool { return t[0] == 's' && (t[2]-'0')%2 == 1 }
	head := fleetRepo(headTenants, func(t string) string {
		if odd(t) {
			return "debug"
		}
		return "info"
	})
	base := fleetRepo(baseTenants, func(string) string { return "info" })
	done := make(chan struct{})
	var res *Result
	var err error
	go func() { defer close(done); res, err = runWith(t, base, head, validator.APIServer{}) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the two sides wait for each other")
	}
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range res.Changes {
		got[c.Tenant+" "+c.Kind] = string(c.Change)
	}
	want := map[string]string{}
	for _, t := range headOnly {
		want[t+" ConfigMap"], want[t+" Deployment"] = string(Added), string(Added)
	}
	for _, t := range baseOnly {
		want[t+" ConfigMap"], want[t+" Deployment"] = string(Removed), string(Removed)
	}
	for _, t := range shared {
		if odd(t) {
			want[t+" ConfigMap"] = string(Modified)
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("changes %v\nwant %v", got, want)
	}
	if res.Summary.Tenants != 36 {
		t.Errorf("%d tenants, want 36", res.Summary.Tenants)
	}
}

// TestBothSidesBrokenSaysTheHead: the sides load at once; where both fail,
// the error is the head's, as when the head was loaded first.
func TestBothSidesBrokenSaysTheHead(t *testing.T) {
	broken := func(what string) fstest.MapFS {
		return repoOf(cm("info"), "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: "+what+"\n")
	}
	for range 20 { // whichever side ends first
		_, err := run(t, broken("base"), broken("head"))
		if err == nil || !strings.HasPrefix(err.Error(), "head: ") {
			t.Fatalf("got %v, want the head's error", err)
		}
	}
}
