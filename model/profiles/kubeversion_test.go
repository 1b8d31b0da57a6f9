package profiles

import (
	"strings"
	"testing"
)

func TestKubeVersionInvalid(t *testing.T) {
	for body, want := range map[string]string{
		"vars: {}\nkubeVersion: \"1.x\"\n": `:2:14: kubeVersion "1.x" is not a Kubernetes release: write 1.minor, like "1.33"`,
		"kubeVersion: 2.0\n":               `:1:14: kubeVersion "2.0" is not a Kubernetes release`,
		"kubeVersion: latest\n":            `:1:14: kubeVersion "latest" is not a Kubernetes release`,
		"kubeVersion: [1, 33]\n":           `:1:14: `, // Str's own error: a string, number or boolean
		"kubeVersion:\n  major: 1\n":       `:2:3: `,
	} {
		_, err := decodeOne("p.yaml", body)
		if err == nil || !strings.Contains(err.Error(), "p.yaml"+want) {
			t.Errorf("%q: error %v, want one containing p.yaml%s", body, err, want)
		}
	}
}
