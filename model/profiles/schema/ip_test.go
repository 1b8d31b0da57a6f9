package schema

import (
	"math/rand/v2"
	"net/netip"
	"regexp"
	"strings"
	"testing"
)

// TestIPPatterns: the schema's ip patterns accept exactly what the loader
// accepts (netip.ParseAddr without a zone index), on addresses written
// every way IPv6 allows and on random text near them.
func TestIPPatterns(t *testing.T) {
	v4, v6 := regexp.MustCompile(IPv4Pattern), regexp.MustCompile(IPv6Pattern)
	r := rand.New(rand.NewPCG(1, 2))
	var inputs []string
	for range 3000 {
		var b [16]byte
		for i := range b {
			if r.IntN(3) > 0 { // runs of zeros, so :: appears
				b[i] = byte(r.IntN(256))
			}
		}
		a := netip.AddrFrom16(b)
		inputs = append(inputs, a.String(), a.StringExpanded(), strings.ToUpper(a.String()), a.Unmap().String())
		v4a := netip.AddrFrom4([4]byte{b[0], b[1], b[2], b[3]})
		inputs = append(inputs, v4a.String(), "::ffff:"+v4a.String(), "1:2:3:4:5:6:"+v4a.String(), "::"+v4a.String(), "1::"+v4a.String())
	}
	alphabet := "0123456789abcdefgABCDEF:.%"
	for range 20000 {
		var s strings.Builder
		for range r.IntN(46) {
			s.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		inputs = append(inputs, s.String())
	}
	// mutations of valid addresses: one character changed, dropped or added
	for i, n := 0, len(inputs); i < n && i < 12000; i++ {
		s := inputs[i]
		if s == "" {
			continue
		}
		k := r.IntN(len(s))
		c := string(alphabet[r.IntN(len(alphabet))])
		inputs = append(inputs, s[:k]+c+s[k+1:], s[:k]+s[k+1:], s[:k]+c+s[k:])
	}
	inputs = append(inputs, "", "::", "::1", "1::", "01.2.3.4", "1.2.3.04", "256.1.1.1", "1.2.3", "fe80::1%eth0", "1:2:3:4:5:6:7::", "::1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "12345::")
	accepted := 0
	for _, s := range inputs {
		a, err := netip.ParseAddr(s)
		want := err == nil && a.Zone() == ""
		got := v4.MatchString(s) || v6.MatchString(s)
		if got != want {
			t.Errorf("%q: pattern says %v, netip.ParseAddr %v (%v)", s, got, want, err)
		}
		if want {
			accepted++
		}
	}
	if accepted < 10000 {
		t.Fatalf("only %d valid addresses among %d inputs", accepted, len(inputs))
	}
	if v4.MatchString("::1") || v6.MatchString("1.2.3.4") {
		t.Error("the two patterns overlap")
	}
}
