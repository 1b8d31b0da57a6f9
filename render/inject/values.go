package inject

import (
	"fmt"
	"net/netip"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/profiles"
)

// Types a placeholder value can have. Each is checked before the value goes
// anywhere, because fragments are shell scripts and a value is pasted into
// them as code.
var valueTypes = map[string]func(string) string{
	"ip":        checkIP,
	"cidr":      checkCIDR,
	"int":       checkInt,
	"hostname":  checkHostname,
	"dns-label": checkDNSLabel,
	"path":      checkPath,
	"string":    func(string) string { return "" },
}

func typeNames() string {
	var names []string
	for n := range valueTypes {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

var (
	placeholderName = regexp.MustCompile(`^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$`)
	integer         = regexp.MustCompile(`^-?[0-9]+$`)
)

// shellSafe are the bytes that mean nothing to a POSIX shell outside quotes,
// in any position: no quoting, expansion, globbing, word splitting, comment,
// redirection, pipe or command separator can come from them.
func shellSafe(b byte) bool {
	switch {
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		return true
	}
	return strings.IndexByte("._/+@%=:,-", b) >= 0
}

// unsafeByte returns the first byte of v a shell would interpret, or "".
func unsafeByte(v string) string {
	for i := 0; i < len(v); i++ {
		if !shellSafe(v[i]) {
			return describe(v[i])
		}
	}
	return ""
}

func describe(b byte) string {
	switch b {
	case '\n':
		return "a newline"
	case '\t':
		return "a tab"
	case ' ':
		return "a space"
	case '`':
		return "a backtick"
	}
	if b < 0x20 || b >= 0x7f {
		return fmt.Sprintf("byte 0x%02x", b)
	}
	return fmt.Sprintf("%q", string(b))
}

func checkIP(v string) string {
	a, err := netip.ParseAddr(v)
	if err != nil || a.Zone() != "" {
		return "is not an IP address"
	}
	return ""
}

func checkCIDR(v string) string {
	if _, err := netip.ParsePrefix(v); err != nil {
		return "is not a CIDR block such as 10.0.0.0/16"
	}
	return ""
}

func checkInt(v string) string {
	if !integer.MatchString(v) {
		return "is not an integer"
	}
	if _, err := strconv.ParseInt(v, 10, 64); err != nil {
		return "is out of the 64-bit integer range"
	}
	return ""
}

// checkHostname checks label by label because IsDNS1123Subdomain does not
// limit a label to 63 characters. Host names are case-insensitive, so upper
// case is accepted; only ASCII is folded, since Unicode folding turns the
// Kelvin sign into a 'k'.
func checkHostname(v string) string {
	if len(v) > validation.DNS1123SubdomainMaxLength {
		return "is longer than the 253 characters of a host name"
	}
	for _, l := range strings.Split(v, ".") {
		if len(validation.IsDNS1123Label(asciiLower(l))) > 0 {
			return "is not a host name (dot-separated labels of letters, digits and '-', at most 63 each)"
		}
	}
	return ""
}

func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

func checkDNSLabel(v string) string {
	if len(validation.IsDNS1123Label(v)) > 0 {
		return "is not a DNS label (at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit)"
	}
	return ""
}

func checkPath(v string) string {
	if v == "" || strings.HasPrefix(v, "-") {
		return "is not a path (it must not be empty or start with '-', which a command would take as an option)"
	}
	return ""
}

// fill is the text one value puts in place of its placeholder.
func fill(name string, iv profiles.InjectValue) (string, *filepos.Error) {
	typ := iv.Type.Value
	if typ == "" {
		typ = "string"
	}
	check, ok := valueTypes[typ]
	if !ok {
		return "", filepos.Errorf(iv.Type.Pos, "unknown type %q for %s: use one of %s", iv.Type.Value, name, typeNames())
	}
	v := iv.Value.Value
	pos := iv.Value.Pos
	if !pos.IsKnown() {
		pos = iv.Pos
	}
	if iv.ShellQuote {
		if typ != "string" {
			return "", filepos.Errorf(iv.Pos, "%s: shellQuote applies to type string only (values of type %s need no quotes)", name, typ)
		}
		if strings.IndexByte(v, 0) >= 0 {
			return "", filepos.Errorf(pos, "value for %s contains a NUL byte, which no command argument can hold: the command would see the value cut short", name)
		}
		return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'", nil
	}
	if msg := check(v); msg != "" {
		return "", filepos.Errorf(pos, "value %q for %s %s", v, name, msg)
	}
	if v == "" {
		return "", filepos.Errorf(pos, "value for %s is empty, which a shell would drop as an argument; use type string with shellQuote: true to insert ''", name)
	}
	if b := unsafeByte(v); b != "" {
		return "", filepos.Errorf(pos, "value %q for %s contains %s, which a shell interprets: a value could end the script's command and run its own; "+
			"use type string with shellQuote: true to insert it single-quoted", v, name, b)
	}
	return v, nil
}
