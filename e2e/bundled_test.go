//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/lint/validator"
)

// strategies are the zone settings every bundled profile is rendered with:
// as bundled, and each strategy forced through a profile that extends it.
var strategies = map[string]string{
	"bundled": "",
	"off":     "zoneHosts: {strategy: \"off\"}\n",
	"static":  "zoneHosts: {strategy: static, zone: ap-northeast-2c}\n",
	"split":   "zoneHosts: {strategy: split}\n",
}

type object struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name        string            `json:"name"`
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Data map[string]string `json:"data"`
	Spec struct {
		Template struct {
			Spec podSpec `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

type podSpec struct {
	HostAliases []struct {
		IP        string   `json:"ip"`
		Hostnames []string `json:"hostnames"`
	} `json:"hostAliases"`
	Affinity struct {
		NodeAffinity struct {
			Required struct {
				Terms []struct {
					MatchExpressions []struct {
						Key    string   `json:"key"`
						Values []string `json:"values"`
					} `json:"matchExpressions"`
				} `json:"nodeSelectorTerms"`
			} `json:"requiredDuringSchedulingIgnoredDuringExecution"`
		} `json:"nodeAffinity"`
	} `json:"affinity"`
	Containers []struct {
		Name    string   `json:"name"`
		Command []string `json:"command"`
		Args    []string `json:"args"`
		EnvFrom []struct {
			ConfigMapRef *struct{ Name string } `json:"configMapRef"`
		} `json:"envFrom"`
	} `json:"containers"`
	Volumes []struct {
		ConfigMap *struct{ Name string }       `json:"configMap"`
		Secret    *struct{ SecretName string } `json:"secret"`
	} `json:"volumes"`
}

var hashed = regexp.MustCompile(`-[a-z0-9]{10}$`)

func profilePath(t *testing.T, name, strategy string) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("..", "profiles", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if strategies[strategy] == "" {
		return abs
	}
	p := filepath.Join(t.TempDir(), name+"-"+strategy+".yaml")
	if err := os.WriteFile(p, []byte("extends: "+abs+"\n"+strategies[strategy]), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBundledProfilesApply renders every bundled profile, tenant and zone
// strategy, has the API server validate it strictly, applies it for real into
// a fresh namespace and reads it back.
func TestBundledProfilesApply(t *testing.T) {
	tenants := map[string][]string{"dev": {"tenant-a", "tenant-b"}, "stg": {"tenant-a"}, "prod": {"tenant-a", "tenant-b", "tenant-c"}}
	for _, profile := range []string{"dev", "stg", "prod"} {
		for _, strategy := range []string{"bundled", "off", "static", "split"} {
			for _, tenant := range tenants[profile] {
				t.Run(profile+"/"+strategy+"/"+tenant, func(t *testing.T) {
					ns := newNamespace(t, "krender-"+profile)
					stream := renderTo(t, filesys.OS, action.Options{Profile: profilePath(t, profile, strategy),
						Tenants: []string{tenant}, Set: []string{"TENANT_NAMESPACE=" + ns}, Paths: []string{"../templates"}})
					if out, err := kubectl(t, stream, "apply", "--dry-run=server", "--validate=strict", "-f", "-"); err != nil {
						t.Fatalf("server-side dry run: %v\n%s", err, out)
					}
					if out, err := kubectl(t, stream, "apply", "--validate=strict", "-f", "-"); err != nil {
						t.Fatalf("apply: %v\n%s", err, out)
					}
					checkApplied(t, ns, profile, strategy)
				})
			}
		}
	}
}

func getAll(t *testing.T, ns string) []object {
	t.Helper()
	var list struct {
		Items []object `json:"items"`
	}
	kubectlJSON(t, &list, "get", "-n", ns, "deployments,configmaps,secrets,services")
	return list.Items
}

func checkApplied(t *testing.T, ns, profile, strategy string) {
	t.Helper()
	objs := getAll(t, ns)
	configMaps := map[string]bool{}
	var deployments []object
	for _, o := range objs {
		switch o.Kind {
		case "ConfigMap":
			if o.Metadata.Name == "kube-root-ca.crt" {
				continue
			}
			configMaps[o.Metadata.Name] = true
			if !hashed.MatchString(o.Metadata.Name) {
				t.Errorf("ConfigMap %s carries no content hash", o.Metadata.Name)
			}
		case "Deployment":
			deployments = append(deployments, o)
		}
	}
	if len(configMaps) != 2 {
		t.Errorf("ConfigMaps %v, want billing-api's and nginx-gateway's", configMaps)
	}
	effective, staticZone := strategy, "ap-northeast-2c"
	if strategy == "bundled" { // as profiles/*.yaml set them
		effective = map[string]string{"dev": "static", "stg": "static", "prod": "split"}[profile]
		if profile == "dev" {
			staticZone = "ap-northeast-2a"
		}
	}
	var names []string
	for _, d := range deployments {
		names = append(names, d.Metadata.Name)
		spec := d.Spec.Template.Spec
		for _, v := range spec.Volumes {
			if v.ConfigMap != nil && !configMaps[v.ConfigMap.Name] {
				t.Errorf("%s mounts ConfigMap %s, which does not exist", d.Metadata.Name, v.ConfigMap.Name)
			}
		}
		for _, c := range spec.Containers {
			for _, ef := range c.EnvFrom {
				if ef.ConfigMapRef != nil && !configMaps[ef.ConfigMapRef.Name] {
					t.Errorf("%s/%s reads env from ConfigMap %s, which does not exist", d.Metadata.Name, c.Name, ef.ConfigMapRef.Name)
				}
			}
			if c.Name == "app" && !strings.HasPrefix(d.Metadata.Name, "web-portal") {
				checkInjected(t, d.Metadata.Name, c.Command, c.Args)
			}
		}
		checkZones(t, d.Metadata.Name, spec, effective, staticZone)
	}
	slices.Sort(names)
	want := []string{"billing-api", "mo-back", "nginx-gateway", "web-portal"}
	if effective == "split" {
		want = []string{"billing-api-2a", "billing-api-2c", "mo-back-2a", "mo-back-2c", "nginx-gateway", "web-portal"}
	}
	if !slices.Equal(names, want) {
		t.Errorf("deployments %v, want %v", names, want)
	}
}

// checkInjected: the wrapper arrived with every `$` the fragment wrote.
func checkInjected(t *testing.T, name string, command, args []string) {
	t.Helper()
	if !slices.Equal(command, []string{"/bin/sh", "-c"}) || len(args) != 3 {
		t.Errorf("%s: command %q args %q: the wrapper was not injected", name, command, args)
		return
	}
	for _, s := range []string{`on $NODE_IP`, `$(hostname)`, `"${HOME:-/root}"`, `efs-zone[$$]`, `exec "$1"`, `${efs_ip:-nothing yet}`} {
		if !strings.Contains(args[0], s) {
			t.Errorf("%s: the injected script lost %s:\n%s", name, s, args[0])
		}
	}
}

func checkZones(t *testing.T, name string, spec podSpec, strategy, staticZone string) {
	t.Helper()
	ips := map[string]string{"ap-northeast-2a": "10.0.1.10", "ap-northeast-2c": "10.0.33.10"}
	var got []string
	for _, ha := range spec.HostAliases {
		got = append(got, ha.IP+" "+strings.Join(ha.Hostnames, ","))
	}
	wantZone := ""
	switch {
	case strings.HasPrefix(name, "web-portal"), strings.HasPrefix(name, "nginx-gateway"), strategy == "off":
	case strategy == "static":
		wantZone = staticZone
	case strings.HasSuffix(name, "-2a"):
		wantZone = "ap-northeast-2a"
	case strings.HasSuffix(name, "-2c"):
		wantZone = "ap-northeast-2c"
	}
	if wantZone == "" {
		if len(got) != 0 {
			t.Errorf("%s: hostAliases %v, want none", name, got)
		}
		return
	}
	want := []string{ips[wantZone] + " fs-0123456789abcdef0.efs.ap-northeast-2.amazonaws.com"}
	if !slices.Equal(got, want) {
		t.Errorf("%s: hostAliases %v, want %v", name, got, want)
	}
	if strategy != "split" {
		return
	}
	terms := spec.Affinity.NodeAffinity.Required.Terms
	if len(terms) == 0 {
		t.Errorf("%s: no required node affinity", name)
	}
	for _, term := range terms {
		ok := false
		for _, e := range term.MatchExpressions {
			ok = ok || (e.Key == "topology.kubernetes.io/zone" && slices.Equal(e.Values, []string{wantZone}))
		}
		if !ok {
			t.Errorf("%s: an affinity term does not require zone %s: %+v", name, wantZone, term)
		}
	}
}

// TestChangedConfigRollsPods: a new ConfigMap value gives a new name, and the
// Deployment's pod template changes with it, which is what makes a rollout.
func TestChangedConfigRollsPods(t *testing.T) {
	ns := newNamespace(t, "krender-roll")
	render1 := func(currency string) string {
		return renderTo(t, filesys.OS, action.Options{Profile: "../profiles/stg.yaml", Tenants: []string{"tenant-a"},
			Set: []string{"TENANT_NAMESPACE=" + ns, "CURRENCY=" + currency}, Paths: []string{"../templates/billing-api"}})
	}
	template := func() (string, string) {
		var d struct {
			Metadata struct {
				Generation int `json:"generation"`
			} `json:"metadata"`
			Spec struct {
				Template json.RawMessage `json:"template"`
			} `json:"spec"`
		}
		kubectlJSON(t, &d, "get", "-n", ns, "deployment", "billing-api")
		return string(d.Spec.Template), ""
	}
	if out, err := kubectl(t, render1("EUR"), "apply", "--validate=strict", "-f", "-"); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	before, _ := template()
	if out, err := kubectl(t, render1("JPY"), "apply", "--validate=strict", "-f", "-"); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	after, _ := template()
	if before == after {
		t.Fatal("the pod template did not change when the ConfigMap's data did: pods would not roll")
	}
	var cms []string
	for _, o := range getAll(t, ns) {
		if o.Kind == "ConfigMap" && strings.HasPrefix(o.Metadata.Name, "billing-api-config-") {
			cms = append(cms, o.Metadata.Name)
			if !strings.Contains(after, o.Metadata.Name) && !strings.Contains(before, o.Metadata.Name) {
				t.Errorf("ConfigMap %s is referenced by neither template", o.Metadata.Name)
			}
		}
	}
	if len(cms) != 2 {
		t.Fatalf("ConfigMaps %v: want the old and the new hashed name side by side", cms)
	}
}

// TestMisspelledFieldCaughtOfflineFirst: the API server rejects a template
// with a misspelled field, and `krender check` finds it before that, at the
// template's line.
func TestMisspelledFieldCaughtOfflineFirst(t *testing.T) {
	ns := newNamespace(t, "krender-typo")
	dir := t.TempDir()
	files := map[string]string{
		"profile.yaml": "vars: {NS: " + ns + "}\n",
		"app.yaml":     strings.Replace(badDeployment, "namespace: default", "namespace: ${NS}", 1),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	findingsRes, err := (&action.Check{FS: filesys.Dir(dir), Options: action.Options{Profile: "profile.yaml", Paths: []string{"app.yaml"}}, Validator: validator.APIServer{}}).Run(t.Context())
	findings := findingsRes.Findings
	if err != nil {
		t.Fatal(err)
	}
	if len(findings) != 1 || findings[0].Rule != "unknown-field" || findings[0].Pos.String() != "app.yaml:15:9" {
		t.Fatalf("krender check found %+v, want unknown-field at app.yaml:15:9", findings)
	}
	stream := renderTo(t, filesys.Dir(dir), action.Options{Profile: "profile.yaml", Paths: []string{"app.yaml"}})
	out, err := kubectl(t, stream, "apply", "--dry-run=server", "--validate=strict", "-f", "-")
	if err == nil || !strings.Contains(out, `unknown field "spec.template.spec.hostAliases[0].hostname"`) {
		t.Fatalf("the server accepted the typo (err %v):\n%s", err, out)
	}
}
