package yamlemit

// The emitter's writers. The library checks the line width before every
// space; krender's is unlimited, so those branches are left out.

func (e *emitter) put(c byte) {
	e.out = append(e.out, c)
	e.column++
}

func (e *emitter) putLineBreak() {
	e.out = append(e.out, '\n')
	e.column = 0
	e.indention = true
}

// write copies the character at s[i] and returns the index after it.
func (e *emitter) write(s string, i int) int {
	w := width(s[i])
	e.out = append(e.out, s[i:i+w]...)
	e.column++
	return i + w
}

func (e *emitter) writeLineBreak(s string, i int) int {
	if s[i] == '\n' {
		e.putLineBreak()
		return i + 1
	}
	i = e.write(s, i)
	e.column = 0
	e.indention = true
	return i
}

func (e *emitter) writeIndent() {
	indent := max(e.indent, 0)
	if !e.indention || e.column > indent || (e.column == indent && !e.whitespace) {
		e.putLineBreak()
	}
	if e.footIndent == indent {
		e.putLineBreak()
	}
	for e.column < indent {
		e.out = append(e.out, ' ')
		e.column++
	}
	e.whitespace = true
	e.footIndent = -1
}

// writeIndicator writes an ASCII indicator.
func (e *emitter) writeIndicator(ind string, needWhitespace, isWhitespace, isIndention bool) {
	if needWhitespace && !e.whitespace {
		e.put(' ')
	}
	e.out = append(e.out, ind...)
	e.column += len(ind)
	e.whitespace = isWhitespace
	e.indention = e.indention && isIndention
}

// writePlain: a plain scalar has no line breaks (they make it quoted).
func (e *emitter) writePlain(v string) {
	if len(v) > 0 && !e.whitespace {
		e.put(' ')
	}
	e.out = append(e.out, v...)
	e.column += runes(v)
	if len(v) > 0 {
		e.whitespace = false
	}
	e.indention = false
}

func (e *emitter) writeSingleQuoted(v string) {
	e.writeIndicator("'", true, false, false)
	if !e.sc.multiline {
		e.writeSingleLine(v)
	} else {
		e.writeSingleLines(v)
	}
	e.writeIndicator("'", false, false, false)
	e.whitespace = false
	e.indention = false
}

func (e *emitter) writeSingleLine(v string) {
	start := 0
	for i := 0; i < len(v); i++ {
		if v[i] == '\'' {
			e.out = append(e.out, v[start:i+1]...)
			e.out = append(e.out, '\'')
			e.column++
			start = i + 1
		}
	}
	e.out = append(e.out, v[start:]...)
	e.column += runes(v)
	if len(v) > 0 {
		e.indention = false
	}
}

func (e *emitter) writeSingleLines(v string) {
	breaks := false
	for i := 0; i < len(v); {
		switch {
		case v[i] == ' ':
			i = e.write(v, i)
		case isLineBreak(v, i):
			if !breaks && v[i] == '\n' {
				e.putLineBreak()
			}
			i = e.writeLineBreak(v, i)
			breaks = true
		default:
			if breaks {
				e.writeIndent()
			}
			if v[i] == '\'' {
				e.put('\'')
			}
			i = e.write(v, i)
			e.indention = false
			breaks = false
		}
	}
}

func (e *emitter) writeDoubleQuoted(v string) {
	e.writeIndicator("\"", true, false, false)
	bom := isBOM(v)
	for i := 0; i < len(v); {
		if bom || v[i] == '"' || v[i] == '\\' || !isPrintable(v, i) || isLineBreak(v, i) {
			i = e.writeEscaped(v, i)
		} else {
			i = e.write(v, i)
		}
	}
	e.writeIndicator("\"", false, false, false)
	e.whitespace = false
	e.indention = false
}

var shortEscapes = map[rune]byte{
	0x00: '0', 0x07: 'a', 0x08: 'b', 0x09: 't', 0x0A: 'n', 0x0b: 'v', 0x0c: 'f', 0x0d: 'r',
	0x1b: 'e', 0x22: '"', 0x5c: '\\', 0x85: 'N', 0xA0: '_', 0x2028: 'L', 0x2029: 'P',
}

const hexDigits = "0123456789ABCDEF"

func (e *emitter) writeEscaped(v string, i int) int {
	w := width(v[i])
	r := rune(v[i])
	switch w {
	case 2:
		r &= 0x1F
	case 3:
		r &= 0x0F
	case 4:
		r &= 0x07
	}
	for k := 1; k < w; k++ {
		r = r<<6 + rune(v[i+k])&0x3F
	}
	e.put('\\')
	if c, ok := shortEscapes[r]; ok {
		e.put(c)
		return i + w
	}
	switch {
	case r <= 0xFF:
		e.put('x')
		w = 2
	case r <= 0xFFFF:
		e.put('u')
		w = 4
	default:
		e.put('U')
		w = 8
	}
	for k := (w - 1) * 4; k >= 0; k -= 4 {
		e.put(hexDigits[(r>>uint(k))&0x0F])
	}
	return i + width(v[i])
}

func (e *emitter) writeBlockScalarHints(v string) {
	i := 0
	for i < len(v) && isLineBreak(v, i) {
		i += width(v[i])
	}
	if i < len(v) && isBlank(v, i) {
		parent := 0
		if n := len(e.indents); n > 0 && e.indents[n-1] > 0 {
			parent = e.indents[n-1]
		}
		indent := min(max(e.indent-parent, 1), 9)
		e.indent = parent + indent
		e.writeIndicator(string(rune('0'+indent)), false, false, false)
	}
	if chomp := chompHint(v); chomp != "" {
		e.writeIndicator(chomp, false, false, false)
	}
}

func chompHint(v string) string {
	if len(v) == 0 {
		return "-"
	}
	i := len(v) - 1
	for v[i]&0xC0 == 0x80 {
		i--
	}
	if !isLineBreak(v, i) {
		return "-"
	}
	if i == 0 {
		return "+"
	}
	i--
	for v[i]&0xC0 == 0x80 {
		i--
	}
	if isLineBreak(v, i) {
		return "+"
	}
	return ""
}

func (e *emitter) writeLiteral(v string) {
	e.writeIndicator("|", true, false, false)
	e.writeBlockScalarHints(v)
	e.processLineComment(true)
	e.whitespace = true
	breaks := true
	for i := 0; i < len(v); {
		if isLineBreak(v, i) {
			i = e.writeLineBreak(v, i)
			breaks = true
			continue
		}
		if breaks {
			e.writeIndent()
		}
		// the rest of the line at once
		j := i
		for j < len(v) && v[j] != '\n' && v[j] != '\r' && v[j] != 0xC2 && v[j] != 0xE2 {
			j++
		}
		if j == i {
			j = i + width(v[i])
		}
		e.out = append(e.out, v[i:j]...)
		e.column += runes(v[i:j])
		i = j
		e.indention = false
		breaks = false
	}
}

func (e *emitter) writeFolded(v string) {
	e.writeIndicator(">", true, false, false)
	e.writeBlockScalarHints(v)
	e.processLineComment(true)
	e.whitespace = true
	breaks, leadingSpaces := true, true
	for i := 0; i < len(v); {
		if isLineBreak(v, i) {
			if !breaks && !leadingSpaces && v[i] == '\n' && foldsInto(v, i) {
				e.putLineBreak()
			}
			i = e.writeLineBreak(v, i)
			breaks = true
			continue
		}
		if breaks {
			e.writeIndent()
			leadingSpaces = isBlank(v, i)
		}
		i = e.write(v, i)
		e.indention = false
		breaks = false
	}
}

// foldsInto: the breaks at i are followed by a line that does not start blank.
func foldsInto(v string, i int) bool {
	k := i
	for k < len(v) && isLineBreak(v, k) {
		k += width(v[k])
	}
	return k < len(v) && !isBlankOrZero(v, k)
}

func (e *emitter) writeComment(c string) {
	breaks, pound := false, false
	for i := 0; i < len(c); {
		if isLineBreak(c, i) {
			i = e.writeLineBreak(c, i)
			breaks, pound = true, false
			continue
		}
		if breaks {
			e.writeIndent()
		}
		if !pound {
			if c[i] != '#' {
				e.put('#')
				e.put(' ')
			}
			pound = true
		}
		i = e.write(c, i)
		e.indention = false
		breaks = false
	}
	if !breaks {
		e.putLineBreak()
	}
	e.whitespace = true
}
