package manifest

import (
	"strings"
	"testing"
)

func TestSplitPath(t *testing.T) {
	for in, want := range map[string]string{
		"spec/volumes[]/configMap/name": "spec|volumes|configMap|name",
		"/spec/x":                       "spec|x",
		`metadata/annotations/example.com\/config/deeper`:               "metadata|annotations|example.com/config|deeper",
		`metadata/annotations/nginx.ingress.kubernetes.io\/auth-secret`: "metadata|annotations|nginx.ingress.kubernetes.io/auth-secret",
	} {
		keys, err := SplitPath(in)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := strings.Join(keys, "|"); got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
	for _, bad := range []string{"", "spec//name", "spec/[]"} {
		if _, err := SplitPath(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
