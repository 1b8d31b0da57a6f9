package contenthash

import (
	"strings"
	"testing"
)

func TestNamesInText(t *testing.T) {
	for _, c := range []struct {
		text string
		want string // ns/name pairs found, space-separated; "-" for no namespace
	}{
		{"--configmap=$(POD_NAMESPACE)/ingress-nginx-controller", "-/ingress-nginx-controller"},
		{"--config=app-config", "-/app-config"},
		{"--tcp-services-configmap=ingress/tcp-services", "ingress/tcp-services"},
		{"app-config", "-/app-config"},
		{"read app-config.", "-/read -/app-config"},
		// file paths: a ConfigMap's mount directory is often named after it
		{"--config=/etc/app-config/app.yaml", ""},
		{"/etc/app-config", ""},
		{"cat ./app-config", "-/cat"},
		{"$(HOME)/etc/app-config", ""},
		{"http://app-config:8080", "-/http -/8080"},
		// flags and other words are not names
		{"--app-config", ""},
		{"APP_CONFIG=x", "-/x"},
		{"my_app-config Xapp-config", ""},
		{"app-config.yaml", "-/app-config.yaml"},
	} {
		var got []string
		names(c.text, func(ns, name string, _ int) {
			if ns == "" {
				ns = "-"
			}
			got = append(got, ns+"/"+name)
		})
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%q: got %q, want %q", c.text, g, c.want)
		}
	}
}
