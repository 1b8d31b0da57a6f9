package action

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/internal/mask"
)

// Vars returns the listing as rows, one per reference, place and tenant,
// with a CI secret's value masked in the data itself: a library caller
// that prints the rows cannot leak it.
func TestVarsRows(t *testing.T) {
	fsys := fstest.MapFS{
		"profile.yaml": {Data: []byte("vars: {HOST: db}\ntenants:\n  a: {}\n  b: {vars: {HOST: db-b}}\n")},
		"app.yaml":     {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  host: $HOST\n  token: ${TOKEN}\n")},
	}
	v := Vars{FS: filesys.NewMem(fsys), Options: Options{Profile: "profile.yaml", Paths: []string{"app.yaml"},
		Secrets: []Secret{{Name: "TOKEN", Value: "s3cr3t-value", From: "--set-env TOKEN"}}}}
	res, err := v.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Dialect != "envsubst (the default)" {
		t.Errorf("dialect %q, want envsubst (the default)", res.Dialect)
	}
	var got []string
	for _, r := range res.Rows {
		line := strings.Join([]string{r.Location.String(), r.Tenant, r.Reference, r.Reader, r.Action}, " | ")
		if strings.Contains(line, "s3cr3t") {
			t.Errorf("a row shows the secret: %s", line)
		}
		got = append(got, strings.TrimSuffix(line, " inside ConfigMap/Secret data"))
	}
	want := []string{
		`app.yaml:5:9 | a | $HOST | program | substituted ("db")`,
		`app.yaml:6:10 | a | ${TOKEN} | program | substituted (` + mask.Mask + `)`,
		`app.yaml:5:9 | b | $HOST | program | substituted ("db-b")`,
		`app.yaml:6:10 | b | ${TOKEN} | program | substituted (` + mask.Mask + `)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Tenants lists the profile's tenants in profile order without reading a
// template.
func TestTenantsInProfileOrder(t *testing.T) {
	fsys := fstest.MapFS{"profile.yaml": {Data: []byte("vars: {}\ntenants:\n  zeta: {}\n  alpha: {}\n")}}
	res, err := (&Tenants{FS: filesys.NewMem(fsys), Profile: "profile.yaml"}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Names, ",") != "zeta,alpha" {
		t.Fatalf("tenants %v, want [zeta alpha]", res.Names)
	}
}
