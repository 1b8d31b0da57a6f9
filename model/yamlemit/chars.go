package yamlemit

// Character classes of go-yaml's scanner, on strings. The library reads a
// byte or two past a multi-byte character's first; valid UTF-8 (all this
// package is given) always has them.

func width(b byte) int {
	switch {
	case b&0x80 == 0x00:
		return 1
	case b&0xE0 == 0xC0:
		return 2
	case b&0xF0 == 0xE0:
		return 3
	case b&0xF8 == 0xF0:
		return 4
	}
	return 0
}

func isPrintable(b string, i int) bool {
	c := b[i]
	switch {
	case c == 0x0A, c >= 0x20 && c <= 0x7E:
		return true
	case c == 0xC2:
		return b[i+1] >= 0xA0
	case c > 0xC2 && c < 0xED, c == 0xEE:
		return true
	case c == 0xED:
		return b[i+1] < 0xA0
	case c == 0xEF:
		return !(b[i+1] == 0xBB && b[i+2] == 0xBF) && !(b[i+1] == 0xBF && (b[i+2] == 0xBE || b[i+2] == 0xBF))
	}
	return false
}

// isBOM looks at the start of the value wherever i is, as go-yaml's does.
func isBOM(b string) bool {
	return len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF
}

func isBlank(b string, i int) bool { return b[i] == ' ' || b[i] == '\t' }

func isLineBreak(b string, i int) bool {
	switch b[i] {
	case '\r', '\n':
		return true
	case 0xC2:
		return b[i+1] == 0x85
	case 0xE2:
		return b[i+1] == 0x80 && (b[i+2] == 0xA8 || b[i+2] == 0xA9)
	}
	return false
}

func isBlankOrZero(b string, i int) bool {
	return isBlank(b, i) || b[i] == 0 || isLineBreak(b, i)
}

// runes counts characters the way the emitter's column does.
func runes(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i]&0xC0 != 0x80 {
			n++
		}
	}
	return n
}
