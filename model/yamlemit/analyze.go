package yamlemit

// analyzeScalar is go-yaml's analyzeScalar: which styles can carry value.
func analyzeScalar(v string) scalarData {
	if len(v) == 0 {
		return scalarData{blockPlain: true, singleQuoted: true}
	}
	if d, ok := analyzeSimple(v); ok {
		return d
	}
	flowInd, blockInd := indicators(v)
	s := spacing(v)
	d := scalarData{multiline: s.lineBreaks, flowPlain: true, blockPlain: true, singleQuoted: true, block: true}
	if s.leadingSpace || s.leadingBreak || s.trailingSpace || s.trailingBreak {
		d.flowPlain, d.blockPlain = false, false
	}
	if s.breakSpace || s.spaceBreak || s.tab || s.special {
		d.flowPlain, d.blockPlain, d.singleQuoted = false, false, false
	}
	if s.special {
		d.block = false
	}
	if s.lineBreaks {
		d.flowPlain, d.blockPlain = false, false
	}
	if flowInd {
		d.flowPlain = false
	}
	if blockInd {
		d.blockPlain = false
	}
	return d
}

// plainSafe are the bytes that, anywhere in a value, leave it plain in
// either context: letters, digits and a few punctuation marks that are
// indicators nowhere but at the start.
var plainSafe = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "-./_=+$()<;~^" {
		t[c] = true
	}
	return t
}()

// analyzeSimple answers for the common value of ASCII letters, digits and
// separators that starts with a letter or digit and ends with neither a
// space nor "---"/"..." at its start: every style is open to it.
func analyzeSimple(v string) (scalarData, bool) {
	c := v[0]
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
		return scalarData{}, false
	}
	for i := 1; i < len(v); i++ {
		if !plainSafe[v[i]] {
			return scalarData{}, false
		}
	}
	return scalarData{flowPlain: true, blockPlain: true, singleQuoted: true, block: true}, true
}

// indicators: the value has flow or block indicators that stop it being plain.
func indicators(v string) (flow, block bool) {
	if len(v) >= 3 && (v[:3] == "---" || v[:3] == "...") {
		flow, block = true, true
	}
	preceded := true
	for i, w := 0, 0; i < len(v); i += w {
		w = width(v[i])
		followed := i+w >= len(v) || isBlank(v, i+w)
		var f, b bool
		if i == 0 {
			f, b = firstIndicator(v[i], followed)
		} else {
			f, b = innerIndicator(v[i], preceded, followed)
		}
		flow, block = flow || f, block || b
		preceded = isBlankOrZero(v, i)
	}
	return flow, block
}

func firstIndicator(c byte, followed bool) (flow, block bool) {
	switch c {
	case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return true, true
	case '?', ':':
		return true, followed
	case '-':
		return followed, followed
	}
	return false, false
}

func innerIndicator(c byte, preceded, followed bool) (flow, block bool) {
	switch c {
	case ',', '?', '[', ']', '{', '}':
		return true, false
	case ':':
		return true, followed
	case '#':
		return preceded, preceded
	}
	return false, false
}

type spacingData struct {
	lineBreaks, special, tab                                 bool
	leadingSpace, leadingBreak, trailingSpace, trailingBreak bool
	breakSpace, spaceBreak                                   bool
}

// spacing is the rest of analyzeScalar: spaces, breaks and unprintables.
func spacing(v string) spacingData {
	var s spacingData
	prevSpace, prevBreak := false, false
	for i, w := 0, 0; i < len(v); i += w {
		w = width(v[i])
		if v[i] == '\t' {
			s.tab = true
		} else if !isPrintable(v, i) {
			s.special = true
		}
		last := i+w == len(v)
		switch {
		case v[i] == ' ':
			s.leadingSpace = s.leadingSpace || i == 0
			s.trailingSpace = s.trailingSpace || last
			s.breakSpace = s.breakSpace || prevBreak
			prevSpace, prevBreak = true, false
		case isLineBreak(v, i):
			s.lineBreaks = true
			s.leadingBreak = s.leadingBreak || i == 0
			s.trailingBreak = s.trailingBreak || last
			s.spaceBreak = s.spaceBreak || prevSpace
			prevSpace, prevBreak = false, true
		default:
			prevSpace, prevBreak = false, false
		}
	}
	return s
}
