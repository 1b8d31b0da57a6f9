package subst

import (
	"fmt"
	"strings"
	"testing"

	"github.com/krender/krender/model/limits"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
)

// longScript is a ConfigMap whose one value is a `|` block of about size
// bytes, a script with one reference every refEvery bytes: the profile's
// ${V}, the shell's $HOME, an escape, a default form, and one Go template
// action at its start.
func longScript(size, refEvery int) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  run.sh: |\n")
	refs := []string{"${V}", "$HOME", "$${ESC}", "${D:-x}", "$V", "$COUNT"}
	for i := 0; b.Len() < size; i++ {
		line := "    echo " + refs[i%len(refs)]
		if i == 0 {
			line += " {{ $x := .Values }}"
		}
		if i%7 == 0 {
			line += "; COUNT=1"
		}
		if pad := refEvery - len(line) - 1; pad > 0 {
			line += " " + strings.Repeat("x", pad-1)
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// oneLine is the same script as a double-quoted scalar on one line.
func oneLine(size, refEvery int) string {
	text := longScript(size, refEvery)
	body := text[strings.Index(text, "|\n")+2:]
	body = strings.ReplaceAll(strings.ReplaceAll(body, "\n    ", "; "), "    ", "")
	return text[:strings.Index(text, "run.sh:")] + "run.sh: \"" + strings.TrimSuffix(body, "\n") + "\"\n"
}

// BenchmarkLongScalar substitutes one long block scalar at a fixed density
// of references (one every 100 bytes): the time per byte (ns/B) stays flat
// from 64 KiB to 8 MiB when the work is linear in the input. Each
// iteration substitutes a fresh stage, so the analysis is in every one.
func BenchmarkLongScalar(b *testing.B) {
	for _, shape := range []struct {
		name string
		text func(size, refEvery int) string
	}{{"block", longScript}, {"line", oneLine}} {
		for _, size := range []int{64 << 10, 256 << 10, 1 << 20, 4 << 20, 8 << 20} {
			b.Run(fmt.Sprintf("%s/%dKiB", shape.name, size>>10), func(b *testing.B) {
				benchScalar(b, shape.text(size, 100))
			})
		}
	}
}

func benchScalar(b *testing.B, text string) {
	src := manifest.NewSource("big.yaml", []byte(text))
	src.Limits = limits.Max() // 8 MiB is past documentBytes
	objs, err := manifest.Parse(src)
	if err != nil {
		b.Fatal(err)
	}
	vars := map[string]string{"V": "one"}
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		s := &manifest.Set{Vars: vars, Objects: []*manifest.Object{objs[0].Clone()}}
		st := New(&profiles.Profile{}, false, nil)
		b.StartTimer()
		if err := st.Apply(s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(text)), "ns/byte")
}
