package shellformat

import "unicode/utf8"

// glob is the pattern matching of the flux and clusterctl dialects' trim
// operators (`${NAME#pattern}`...): shell wildcards `*`, `?`, `[…]` and `\`,
// as drone/envsubst's own copy of path.Match reads them. Unlike Go's
// path.Match, `*` and `?` match `/` too, and a pattern is found malformed
// (bad) only where matching reaches the flaw.
func glob(pattern, name string) (ok, bad bool) {
next:
	for len(pattern) > 0 {
		star, chunk, rest := globChunk(pattern)
		pattern = rest
		if star && chunk == "" {
			return true, false
		}
		t, ok, bad := globMatchChunk(chunk, name)
		if ok && (len(t) == 0 || len(pattern) > 0) {
			name = t
			continue
		}
		if bad {
			return false, true
		}
		if star {
			for i := 0; i < len(name); i++ {
				t, ok, bad := globMatchChunk(chunk, name[i+1:])
				if ok {
					if len(pattern) == 0 && len(t) > 0 {
						continue
					}
					name = t
					continue next
				}
				if bad {
					return false, true
				}
			}
		}
		return false, false
	}
	return len(name) == 0, false
}

// globChunk splits off the leading stars and the run of single-character
// operators after them.
func globChunk(pattern string) (star bool, chunk, rest string) {
	for len(pattern) > 0 && pattern[0] == '*' {
		pattern, star = pattern[1:], true
	}
	inClass := false
	i := 0
	for ; i < len(pattern); i++ {
		c := pattern[i]
		if c == '\\' && i+1 < len(pattern) {
			i++
		} else if c == '[' || c == ']' {
			inClass = c == '['
		} else if c == '*' && !inClass {
			break
		}
	}
	return star, pattern[:i], pattern[i:]
}

// globMatchChunk matches chunk at the start of s: the rest of s, or not.
func globMatchChunk(chunk, s string) (rest string, ok, bad bool) {
	for len(chunk) > 0 {
		if len(s) == 0 {
			return "", false, false
		}
		switch chunk[0] {
		case '[':
			r, n := utf8.DecodeRuneInString(s)
			var in bool
			if in, chunk, bad = globClass(chunk[1:], r); bad {
				return "", false, true
			}
			if !in {
				return "", false, false
			}
			s = s[n:]
		case '?':
			_, n := utf8.DecodeRuneInString(s)
			s, chunk = s[n:], chunk[1:]
		default:
			if chunk[0] == '\\' {
				if chunk = chunk[1:]; len(chunk) == 0 {
					return "", false, true
				}
			}
			if chunk[0] != s[0] {
				return "", false, false
			}
			s, chunk = s[1:], chunk[1:]
		}
	}
	return s, true, false
}

// globClass matches r against the class `[…]` whose body starts chunk,
// and returns the chunk after its `]`.
func globClass(chunk string, r rune) (in bool, rest string, bad bool) {
	want := true
	if len(chunk) > 0 && chunk[0] == '^' {
		want, chunk = false, chunk[1:]
	}
	found, ranges := false, 0
	for !(len(chunk) > 0 && chunk[0] == ']' && ranges > 0) {
		var lo, hi rune
		if lo, chunk, bad = globEsc(chunk); bad {
			return false, "", true
		}
		hi = lo
		if chunk[0] == '-' {
			if hi, chunk, bad = globEsc(chunk[1:]); bad {
				return false, "", true
			}
		}
		found = found || lo <= r && r <= hi
		ranges++
	}
	return found == want, chunk[1:], false
}

// globEsc reads one character of a class, `\` escaping it.
func globEsc(chunk string) (r rune, rest string, bad bool) {
	if len(chunk) == 0 || chunk[0] == '-' || chunk[0] == ']' {
		return 0, "", true
	}
	if chunk[0] == '\\' {
		if chunk = chunk[1:]; len(chunk) == 0 {
			return 0, "", true
		}
	}
	r, n := utf8.DecodeRuneInString(chunk)
	rest = chunk[n:]
	return r, rest, r == utf8.RuneError && n == 1 || len(rest) == 0
}
