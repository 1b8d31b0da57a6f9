package fieldcheck

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// ValueJSON is v, a Value, as encoding/json.Marshal writes it, byte for byte,
// without reflection: judging an update writes each side of every changed
// workload as JSON for the API server's decoder, and Marshal's reflection
// over a map took a fifth of judging one. A value of any other type, or a
// float JSON cannot hold, is Marshal's, error and all.
func ValueJSON(v any) ([]byte, error) {
	if b, ok := appendJSON(make([]byte, 0, 1024), v); ok {
		return b, nil
	}
	return json.Marshal(v)
}

func appendJSON(b []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, v), true
	case string:
		return appendString(b, v), true
	case int64:
		return strconv.AppendInt(b, v, 10), true
	case float64:
		return appendFloat(b, v)
	case []any:
		return appendList(b, v)
	case map[string]any:
		return appendMap(b, v)
	}
	return b, false
}

func appendList(b []byte, l []any) ([]byte, bool) {
	if l == nil {
		return append(b, "null"...), true
	}
	b = append(b, '[')
	for i, v := range l {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = appendJSON(b, v); !ok {
			return b, false
		}
	}
	return append(b, ']'), true
}

// appendMap writes m's keys sorted, as Marshal does.
func appendMap(b []byte, m map[string]any) ([]byte, bool) {
	if m == nil {
		return append(b, "null"...), true
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendString(b, k), ':')
		var ok bool
		if b, ok = appendJSON(b, m[k]); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendFloat is encoding/json's floatEncoder for float64 (ES6's number
// to string): 'f' between 1e-6 and 1e21, else 'e' without a leading zero
// in the exponent.
func appendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	format, abs := byte('f'), math.Abs(f)
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b, true
}

const hexDigits = "0123456789abcdef"

// appendString is encoding/json's string encoder with HTML escaping, as
// Marshal writes: <, > and & escaped, U+2028 and U+2029 too, invalid
// UTF-8 as U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = appendEscaped(append(b, s[start:i]...), c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}

// appendEscaped writes an ASCII byte JSON escapes, as Marshal does.
func appendEscaped(b []byte, c byte) []byte {
	switch c {
	case '\\', '"':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}
