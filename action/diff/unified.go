package diff

import (
	"regexp"
	"strconv"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/manifest"
)

// unifiedText is a unified diff of old and new. go-udiff, like the
// x/tools code it comes from (golang/go#81453), starts every hunk after one
// that joined two nearby edits at too small a new-file line; the new start
// follows from the old one and the lines each earlier hunk added or
// removed, so it is written anew from the hunks themselves.
func unifiedText(oldLabel, newLabel, old, new string) string {
	return fixHunkStarts(udiff.Unified(oldLabel, newLabel, old, new))
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

func fixHunkStarts(text string) string {
	lines := strings.SplitAfter(text, "\n")
	delta := 0 // lines added less lines removed by the hunks before
	for i, l := range lines {
		m := hunkHeader.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		from, _ := strconv.Atoi(m[1])
		fromCount, toCount := hunkCounts(lines[i+1:])
		first := from // the hunk's first old line, or where it inserts
		if fromCount == 0 {
			first++
		}
		to := first + delta
		if toCount == 0 {
			to--
		}
		lines[i] = "@@ -" + span(from, fromCount) + " +" + span(to, toCount) + " @@" + l[len(m[0]):]
		delta += toCount - fromCount
	}
	return strings.Join(lines, "")
}

// hunkCounts counts the old and new lines of the hunk whose body starts
// lines.
func hunkCounts(lines []string) (from, to int) {
	for _, l := range lines {
		if strings.HasPrefix(l, "@@ ") || l == "" {
			break
		}
		switch l[0] {
		case ' ':
			from++
			to++
		case '-':
			from++
		case '+':
			to++
		}
	}
	return from, to
}

// span is a hunk's range as diff writes it: "start" alone for one line.
func span(start, count int) string {
	if count == 1 {
		return strconv.Itoa(start)
	}
	return strconv.Itoa(start) + "," + strconv.Itoa(count)
}

// unified is the object's diff, base to head, every Secret's values
// redacted.
func unified(old, new *object) string {
	text := func(o *object) string {
		if o == nil {
			return ""
		}
		obj := o.o
		if isData(o) && o.kind == "Secret" {
			obj = redacted(obj)
		}
		b, err := manifest.MarshalObject(obj)
		if err != nil {
			return ""
		}
		return string(b)
	}
	name := "object"
	if o := new; o != nil || old != nil {
		if o == nil {
			o = old
		}
		name = o.kind + "/" + o.name
	}
	return unifiedText("base/"+name, "head/"+name, text(old), text(new))
}

// redacted is a Secret with every value of data and stringData replaced,
// and no comment: one beside a value often spells it out ("echo -n
// mypassword | base64").
func redacted(o *manifest.Object) *manifest.Object {
	c := o.Clone()
	manifest.Walk(c.Node, func(n *yaml.Node) { n.HeadComment, n.LineComment, n.FootComment = "", "", "" })
	for k := range dataKeys {
		m := manifest.Value(c.Node, k)
		if m == nil {
			continue
		}
		for i := 1; i < len(m.Content); i += 2 {
			m.Content[i] = manifest.String("<redacted>")
		}
	}
	return c
}
