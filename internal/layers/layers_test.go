package layers

import "testing"

func TestOf(t *testing.T) {
	for path, want := range map[string]string{
		"render":                            "engine",
		"render/subst/shellformat":          "stages",
		Module + "/render/contenthash/refs": "stages",
		"cmd/internal/cli":                  "command line",
		"cluster/client":                    "cluster",
		"cmd/internal/krm":                  "command line",
		"cmd/internal/handover":             "command line",
		"cmd/krender":                       "main",
		"internal/testing/testtool":         "test support",
		"model/profiles":                    "model",
	} {
		if i, ok := Of(path); !ok || Table[i].Name != want {
			t.Errorf("Of(%s) = %d, %v; want %s", path, i, ok, want)
		}
	}
	for _, path := range []string{"", "renderer", "internal", "github.com/other/render"} {
		if i, ok := Of(path); ok {
			t.Errorf("Of(%q) = %s, want no row", path, Table[i].Name)
		}
	}
}
