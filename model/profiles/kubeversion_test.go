package profiles

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/krender/krender/kube/kubeapi"
)

func TestKubeVersionLaterFileOverrides(t *testing.T) {
	files := map[string]string{
		"base.yaml": "kubeVersion: \"1.29\"\n",
		"env.yaml":  "extends: base.yaml\nnamespace: x\nkubeVersion: v1.33.4\n",
		"same.yaml": "extends: base.yaml\n",
		"flt.yaml":  "kubeVersion: 1.30\n", // a YAML float; its text is what counts
		"none.yaml": "vars: {}\n",
	}
	for root, want := range map[string]struct {
		v          kubeapi.Version
		text, file string
		line       int
	}{
		"env.yaml":  {kubeapi.Version{Major: 1, Minor: 33}, "v1.33.4", "env.yaml", 3},
		"same.yaml": {kubeapi.Version{Major: 1, Minor: 29}, "1.29", "base.yaml", 1},
		"flt.yaml":  {kubeapi.Version{Major: 1, Minor: 30}, "1.30", "flt.yaml", 1},
		"none.yaml": {},
	} {
		p, err := loadFiles(t, files, root)
		if err != nil {
			t.Fatalf("%s: %v", root, err)
		}
		kv := p.KubeVersion
		if kv.Version != want.v || kv.Value != want.text || kv.Pos.Line != want.line || want.file != "" && filepath.Base(kv.Pos.File) != want.file {
			t.Errorf("%s: kubeVersion %+v, want %s (%q) at %s:%d", root, kv, want.v, want.text, want.file, want.line)
		}
	}
}

func TestKubeVersionInvalid(t *testing.T) {
	for body, want := range map[string]string{
		"vars: {}\nkubeVersion: \"1.x\"\n": `:2:14: kubeVersion "1.x" is not a Kubernetes release: write 1.minor, like "1.33"`,
		"kubeVersion: 2.0\n":               `:1:14: kubeVersion "2.0" is not a Kubernetes release`,
		"kubeVersion: latest\n":            `:1:14: kubeVersion "latest" is not a Kubernetes release`,
		"kubeVersion: [1, 33]\n":           `:1:14: `, // Str's own error: a string, number or boolean
		"kubeVersion:\n  major: 1\n":       `:2:3: `,
	} {
		_, err := loadFiles(t, map[string]string{"p.yaml": body}, "p.yaml")
		if err == nil || !strings.Contains(err.Error(), "p.yaml"+want) {
			t.Errorf("%q: error %v, want one containing p.yaml%s", body, err, want)
		}
	}
}
