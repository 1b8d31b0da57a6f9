package inject

import (
	"strings"
	"testing"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/profiles"
)

func value(v, typ string, quote bool) profiles.InjectValue {
	pos := filepos.Pos{File: "p.yaml", Line: 7, Col: 9}
	return profiles.InjectValue{Value: profiles.Str{Value: v, Pos: pos}, Type: profiles.Str{Value: typ, Pos: pos}, ShellQuote: quote, Pos: pos}
}

func TestFillAcceptsWellTypedValues(t *testing.T) {
	cases := []struct{ v, typ string }{
		{"10.0.1.10", "ip"},
		{"fd00::1", "ip"},
		{"10.0.0.0/16", "cidr"},
		{"2001:db8::/32", "cidr"},
		{"31", "int"},
		{"-1", "int"},
		{"fs-0123456789abcdef0.efs.ap-northeast-2.amazonaws.com", "hostname"},
		{"db", "hostname"},
		{"Fs-1.EFS.Example.com", "hostname"}, // host names are case-insensitive
		{strings.Repeat("a", 63) + ".com", "hostname"},
		{strings.Repeat(strings.Repeat("a", 63)+".", 3) + strings.Repeat("a", 61), "hostname"}, // 253
		{strings.Repeat("a", 63), "dns-label"},
		{"tenant-a", "dns-label"},
		{"/mnt/efs", "path"},
		{"data/v1.2", "path"},
		{"key=value,other:1", "string"},
		{"plain", ""}, // no type: a string
	}
	for _, c := range cases {
		got, err := fill("X", value(c.v, c.typ, false))
		if err != nil {
			t.Errorf("%q as %s: %v", c.v, c.typ, err)
			continue
		}
		if got != c.v {
			t.Errorf("%q as %s: filled %q, want the value unchanged", c.v, c.typ, got)
		}
	}
}

func TestFillRejects(t *testing.T) {
	cases := []struct{ v, typ, msg string }{
		{"10.0.1.10; reboot", "ip", "is not an IP address"},
		{"fe80::1%eth0", "ip", "is not an IP address"},
		{"10.0.0.0", "cidr", "is not a CIDR block"},
		{"3.5", "int", "is not an integer"},
		{"99999999999999999999", "int", "out of the 64-bit integer range"},
		{"a..b", "hostname", "is not a host name"},
		{"-a.example.com", "hostname", "is not a host name"},
		{strings.Repeat("a", 64) + ".com", "hostname", "is not a host name"},
		{"\u212aube.example.com", "hostname", "is not a host name"}, // Kelvin sign, which Unicode folds to 'k'
		{"a_b.example.com", "hostname", "is not a host name"},
		{"example.com.", "hostname", "is not a host name"},
		{strings.Repeat(strings.Repeat("a", 63)+".", 3) + strings.Repeat("a", 62), "hostname", "longer than the 253 characters"},
		{"Tenant", "dns-label", "is not a DNS label"},
		{"tenant-", "dns-label", "is not a DNS label"},
		{"a.b", "dns-label", "is not a DNS label"},
		{strings.Repeat("a", 64), "dns-label", "is not a DNS label"},
		{"-rf", "path", "start with '-'"},
		{"/mnt/my dir", "path", "contains a space"},
		{"", "string", "is empty"},
		{"x\ny", "string", "contains a newline"},
		{"a;b", "string", `contains ";"`},
		{"a|b", "string", `contains "|"`},
		{"a&b", "string", `contains "&"`},
		{"$HOME", "string", `contains "$"`},
		{"`id`", "string", "contains a backtick"},
		{`"x"`, "string", `contains "\""`},
		{"'x'", "string", `contains "'"`},
		{"a>b", "string", `contains ">"`},
		{"*", "string", `contains "*"`},
		{"a#b", "string", `contains "#"`},
		{"(x)", "string", `contains "("`},
		{"~root", "string", `contains "~"`},
		{"x", "url", `unknown type "url"`},
		{"1.2.3.4", "ip+quote", "shellQuote applies to type string only"},
	}
	for _, c := range cases {
		typ, quote := strings.CutSuffix(c.typ, "+quote")
		_, err := fill("X", value(c.v, typ, quote))
		if err == nil {
			t.Errorf("%q as %s was accepted", c.v, c.typ)
			continue
		}
		if !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q as %s: %v; want it to say %q", c.v, c.typ, err, c.msg)
		}
		if err.Pos.File != "p.yaml" || err.Pos.Line != 7 {
			t.Errorf("%q as %s: error at %s, want the profile position", c.v, c.typ, err.Pos)
		}
	}
}

// TestShellQuote checks with a real shell that a quoted value arrives as one
// word, byte for byte, whatever it holds.
func TestShellQuote(t *testing.T) {
	for _, v := range []string{`it's`, `$(id) ; rm -rf / | sh & `, "two\nlines", `''`, `\'`, "`x`", ""} {
		q, err := fill("X", value(v, "string", true))
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		out := runShell(t, "printf '%s' "+q)
		if out != v {
			t.Errorf("%q quoted as %s reached the shell as %q", v, q, out)
		}
	}
}
