package suggest

import "testing"

func TestClosest(t *testing.T) {
	defined := []string{"REGISTRY", "IMAGE_TAG", "TENANT_ID", "ENV"}
	for name, want := range map[string]string{
		"REGISTY": "REGISTRY", "registry": "REGISTRY", "IMAGETAG": "IMAGE_TAG", "TENANTID": "TENANT_ID",
		"NODE_IP": "", "ENVV": "ENV", "X": "", "EN": "ENV", "REGISTRY": "",
	} {
		if got := Closest(name, defined); got != want {
			t.Errorf("Closest(%s) = %q, want %q", name, got, want)
		}
	}
	// Long names allow three edits; ties go to the first in sort order.
	if got := Closest("containerz_x", []string{"containers"}); got != "containers" {
		t.Errorf("long name: %q", got)
	}
	if got := Closest("ab", []string{"ac", "aa"}); got != "aa" {
		t.Errorf("tie: %q", got)
	}
	if got := Hint("imagee", []string{"image", "name"}); got != " (did you mean image?)" {
		t.Errorf("Hint = %q", got)
	}
	if got := Hint("zzz", []string{"image"}); got != "" {
		t.Errorf("Hint = %q", got)
	}
}
