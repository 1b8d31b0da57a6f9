package kubeapi

import (
	"strings"
	"testing"
)

func v(major, minor int) Version { return Version{major, minor} }

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]Version{
		"1.33": v(1, 33), "v1.33": v(1, 33), "1.33.4": v(1, 33), "v1.33.0": v(1, 33),
		"v1.29.0-eks-5e0fdde": v(1, 29), "1.31.2+k3s1": v(1, 31), "1.0": v(1, 0), "1.9": v(1, 9),
	} {
		got, err := ParseVersion(in)
		if err != nil || got != want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "1", "v1", "1.", "1.x", "one.two", "2.0", "0.9", "01.33", "1.033",
		" 1.33", "1.33 ", "1.33.", "1.33.4.5", "V1.33", "vv1.33", "latest", "1.33-rc.1", "1.1000"} {
		if got, err := ParseVersion(in); err == nil {
			t.Errorf("ParseVersion(%q) = %v, want an error", in, got)
		} else if !strings.Contains(err.Error(), "1.33") {
			t.Errorf("ParseVersion(%q): error %q shows no example", in, err)
		}
	}
}

func TestVersionCompare(t *testing.T) {
	ordered := []Version{{}, v(1, 0), v(1, 9), v(1, 10), v(1, 33), v(2, 0)}
	for i, a := range ordered {
		for j, b := range ordered {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := a.Compare(b); got != want {
				t.Errorf("%s.Compare(%s) = %d, want %d", a, b, got, want)
			}
		}
	}
	if v(1, 33).String() != "1.33" || !(Version{}).IsZero() || v(1, 0).IsZero() {
		t.Error("String or IsZero")
	}
}
