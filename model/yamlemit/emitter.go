package yamlemit

// The emitter: go-yaml's (internal/libyaml/emitter.go), for block and flow
// collections and scalars without anchors or tags, with the indent of 2,
// unlimited width, Unicode and line feeds that krender's layout sets.

type state uint8

const (
	stDocumentContent state = iota
	stDocumentEnd
	stDocumentStart
	stFlowSeqFirst
	stFlowSeqTrail
	stFlowSeqItem
	stFlowMapFirst
	stFlowMapTrail
	stFlowMapKey
	stFlowMapSimpleValue
	stFlowMapValue
	stBlockSeqFirst
	stBlockSeqItem
	stBlockMapFirst
	stBlockMapKey
	stBlockMapSimpleValue
)

const bestIndent = 2

type evType uint8

const (
	evScalar evType = iota + 1
	evSeqStart
	evSeqEnd
	evMapStart
	evMapEnd
	evDocEnd
)

// event is one of the serializer's events, comments and all.
type event struct {
	typ                    evType
	head, line, foot, tail string
	value                  string      // a scalar's
	style                  scalarStyle // a scalar's, as the serializer asks
	flow                   bool        // a collection's start: flow style asked for
	empty                  bool        // a collection's start: nothing in it
}

// scalarData is the emitter's analysis of the scalar at hand.
type scalarData struct {
	multiline, flowPlain, blockPlain, singleQuoted, block bool
	style                                                 scalarStyle
}

type emitter struct {
	out     []byte
	state   state
	states  []state
	indents []int

	indent, flowLevel, column, footIndent int

	rootCtx, seqCtx, mapCtx, simpleKeyCtx bool
	whitespace, indention                 bool

	head, line, foot, tail, keyLine string

	sc    scalarData
	value string

	declined bool
}

func (e *emitter) reset(out []byte) {
	*e = emitter{out: out, states: e.states[:0], indents: e.indents[:0]}
	e.indent = -1
	e.whitespace, e.indention = true, true
	e.footIndent = -1
	e.state = stDocumentContent
}

func (e *emitter) pushState(s state) { e.states = append(e.states, s) }

func (e *emitter) popState() {
	e.state = e.states[len(e.states)-1]
	e.states = e.states[:len(e.states)-1]
}

func (e *emitter) popIndent() {
	e.indent = e.indents[len(e.indents)-1]
	e.indents = e.indents[:len(e.indents)-1]
}

// emit analyses one event and runs the state machine on it.
func (e *emitter) emit(ev *event) {
	if e.declined {
		return
	}
	e.analyze(ev)
	switch e.state {
	case stDocumentContent:
		e.documentContent(ev)
	case stDocumentEnd:
		e.documentEnd()
	case stFlowSeqFirst, stFlowSeqTrail, stFlowSeqItem:
		e.flowSequenceItem(ev, e.state == stFlowSeqFirst, e.state == stFlowSeqTrail)
	case stFlowMapFirst, stFlowMapTrail, stFlowMapKey:
		e.flowMappingKey(ev, e.state == stFlowMapFirst, e.state == stFlowMapTrail)
	case stFlowMapSimpleValue:
		e.flowMappingValue(ev)
	case stBlockSeqFirst, stBlockSeqItem:
		e.blockSequenceItem(ev, e.state == stBlockSeqFirst)
	case stBlockMapFirst, stBlockMapKey:
		e.blockMappingKey(ev, e.state == stBlockMapFirst)
	case stBlockMapSimpleValue:
		e.blockMappingValue(ev)
	default:
		e.declined = true
	}
}

func (e *emitter) analyze(ev *event) {
	if ev.head != "" {
		e.head = ev.head
	}
	if ev.line != "" {
		e.line = ev.line
	}
	if ev.foot != "" {
		e.foot = ev.foot
	}
	if ev.tail != "" {
		e.tail = ev.tail
	}
	if ev.typ == evScalar {
		e.value = ev.value
		e.sc = analyzeScalar(ev.value)
	}
}

func (e *emitter) documentContent(ev *event) {
	e.pushState(stDocumentEnd)
	e.processHeadComment()
	e.emitNode(ev, true, false, false, false)
	e.processLineComment(false)
	e.processFootComment()
}

func (e *emitter) documentEnd() {
	e.footIndent = 0 // [Go] force document foot separation
	e.processFootComment()
	e.footIndent = -1
	e.writeIndent()
	e.state = stDocumentStart
}

func (e *emitter) pendingComments() bool {
	return e.line != "" || e.foot != "" || e.tail != ""
}

func (e *emitter) flowSequenceItem(ev *event, first, trail bool) {
	if first {
		e.writeIndicator("[", true, true, false)
		e.increaseIndent(true, false)
		e.flowLevel++
	}
	if ev.typ == evSeqEnd {
		e.processHeadComment()
		e.flowLevel--
		e.popIndent()
		if e.column == 0 {
			e.writeIndent()
		}
		e.writeIndicator("]", false, false, false)
		e.processLineComment(false)
		e.processFootComment()
		e.popState()
		return
	}
	if !first && !trail {
		e.writeIndicator(",", false, false, false)
	}
	e.processHeadComment()
	if e.column == 0 {
		e.writeIndent()
	}
	if e.pendingComments() {
		e.pushState(stFlowSeqTrail)
	} else {
		e.pushState(stFlowSeqItem)
	}
	e.emitNode(ev, false, true, false, false)
	if e.pendingComments() {
		e.writeIndicator(",", false, false, false)
	}
	e.processLineComment(false)
	e.processFootComment()
}

func (e *emitter) flowMappingKey(ev *event, first, trail bool) {
	if first {
		e.writeIndicator("{", true, true, false)
		e.increaseIndent(true, false)
		e.flowLevel++
	}
	if ev.typ == evMapEnd {
		e.processHeadComment()
		e.flowLevel--
		e.popIndent()
		e.writeIndicator("}", false, false, false)
		e.processLineComment(false)
		e.processFootComment()
		e.popState()
		return
	}
	if !first && !trail {
		e.writeIndicator(",", false, false, false)
	}
	e.processHeadComment()
	if e.column == 0 {
		e.writeIndent()
	}
	if !e.simpleKey(ev) {
		e.declined = true // a "? " key
		return
	}
	e.pushState(stFlowMapSimpleValue)
	e.emitNode(ev, false, false, true, true)
}

func (e *emitter) flowMappingValue(ev *event) {
	e.writeIndicator(":", false, false, false)
	if e.pendingComments() {
		e.pushState(stFlowMapTrail)
	} else {
		e.pushState(stFlowMapKey)
	}
	e.emitNode(ev, false, false, true, false)
	if e.pendingComments() {
		e.writeIndicator(",", false, false, false)
	}
	e.processLineComment(false)
	e.processFootComment()
}

func (e *emitter) blockSequenceItem(ev *event, first bool) {
	if first {
		e.increaseIndent(false, false) // sequences are not compact in krender's layout
	}
	if ev.typ == evSeqEnd {
		e.popIndent()
		e.popState()
		return
	}
	e.processHeadComment()
	e.writeIndent()
	e.writeIndicator("-", true, false, true)
	e.pushState(stBlockSeqItem)
	e.emitNode(ev, false, true, false, false)
	e.processLineComment(false)
	e.processFootComment()
}

func (e *emitter) blockMappingKey(ev *event, first bool) {
	if first {
		e.increaseIndent(false, false)
	}
	e.processHeadComment()
	if ev.typ == evMapEnd {
		e.popIndent()
		e.popState()
		return
	}
	e.writeIndent()
	if e.line != "" {
		// [Go] a line comment on the key: written with the value.
		e.keyLine, e.line = e.line, ""
	}
	if !e.simpleKey(ev) {
		e.declined = true // a "? " key
		return
	}
	e.pushState(stBlockMapSimpleValue)
	e.emitNode(ev, false, false, true, true)
}

func (e *emitter) blockMappingValue(ev *event) {
	e.writeIndicator(":", false, false, false)
	if e.keyLine != "" {
		switch {
		case ev.typ == evScalar:
			if e.line == "" {
				e.line, e.keyLine = e.keyLine, ""
			}
		case !ev.flow && (ev.typ == evMapStart || ev.typ == evSeqStart):
			e.line, e.keyLine = e.keyLine, e.line
			e.processLineComment(false)
			e.line, e.keyLine = e.keyLine, e.line
		}
	}
	e.pushState(stBlockMapKey)
	e.emitNode(ev, false, false, true, false)
	e.processLineComment(false)
	e.processFootComment()
}

func (e *emitter) emitNode(ev *event, root, sequence, mapping, simpleKey bool) {
	e.rootCtx, e.seqCtx, e.mapCtx, e.simpleKeyCtx = root, sequence, mapping, simpleKey
	switch ev.typ {
	case evScalar:
		e.emitScalar(ev)
	case evSeqStart:
		e.collectionStart(ev, stFlowSeqFirst, stBlockSeqFirst)
	case evMapStart:
		e.collectionStart(ev, stFlowMapFirst, stBlockMapFirst)
	default:
		e.declined = true
	}
}

func (e *emitter) emitScalar(ev *event) {
	e.selectScalarStyle(ev)
	e.increaseIndent(true, false)
	e.processScalar()
	e.popIndent()
	e.popState()
}

func (e *emitter) collectionStart(ev *event, flow, block state) {
	if e.flowLevel > 0 || ev.flow || ev.empty {
		e.state = flow
	} else {
		e.state = block
	}
	// An interior comment of an empty flow collection goes inside it.
	if e.foot != "" && e.head == "" && ev.empty {
		e.head, e.foot = e.foot, ""
	}
}

// simpleKey is checkSimpleKey for the event at hand.
func (e *emitter) simpleKey(ev *event) bool {
	switch ev.typ {
	case evScalar:
		return !e.sc.multiline && len(ev.value) <= 128
	case evSeqStart, evMapStart:
		return ev.empty
	}
	return false
}

func (e *emitter) selectScalarStyle(ev *event) {
	style := ev.style
	if e.simpleKeyCtx && e.sc.multiline {
		style = doubleStyle
	}
	if style == plainStyle && !e.plainAllowed(ev.value) {
		style = singleStyle // the quote style the emitter's legacy preference requires
	}
	if style == singleStyle && !e.sc.singleQuoted {
		style = doubleStyle
	}
	if (style == literalStyle || style == foldedStyle) && (!e.sc.block || e.flowLevel > 0 || e.simpleKeyCtx) {
		style = doubleStyle
	}
	e.sc.style = style
}

// plainAllowed: the value can be written plain where the emitter is.
func (e *emitter) plainAllowed(v string) bool {
	if e.flowLevel > 0 && !e.sc.flowPlain || e.flowLevel == 0 && !e.sc.blockPlain {
		return false
	}
	return len(v) > 0 || e.flowLevel == 0 && !e.simpleKeyCtx
}

func (e *emitter) processScalar() {
	switch e.sc.style {
	case plainStyle:
		e.writePlain(e.value)
	case singleStyle:
		e.writeSingleQuoted(e.value)
	case doubleStyle:
		e.writeDoubleQuoted(e.value)
	case literalStyle:
		e.writeLiteral(e.value)
	case foldedStyle:
		e.writeFolded(e.value)
	}
}

func (e *emitter) processHeadComment() {
	if e.tail != "" {
		e.writeIndent()
		e.writeComment(e.tail)
		e.tail = ""
		e.footIndent = max(e.indent, 0)
	}
	if e.head == "" {
		return
	}
	e.writeIndent()
	e.writeComment(e.head)
	e.head = ""
}

func (e *emitter) processLineComment(linebreak bool) {
	if e.line == "" {
		if linebreak {
			e.putLineBreak()
		}
		return
	}
	if !e.whitespace {
		e.put(' ')
	}
	e.writeComment(e.line)
	e.line = ""
}

func (e *emitter) processFootComment() {
	if e.foot == "" {
		return
	}
	e.writeIndent()
	e.writeComment(e.foot)
	e.foot = ""
	e.footIndent = max(e.indent, 0)
}

func (e *emitter) increaseIndent(flow, indentless bool) {
	e.indents = append(e.indents, e.indent)
	switch {
	case e.indent < 0:
		if flow {
			e.indent = bestIndent
		} else {
			e.indent = 0
		}
	case indentless:
	case e.states[len(e.states)-1] == stBlockSeqItem:
		e.indent += 2 // the first indent inside a sequence skips "- "
	default:
		e.indent = bestIndent * ((e.indent + bestIndent) / bestIndent)
	}
}
