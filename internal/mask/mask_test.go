package mask

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestTextMasksEveryQuoting(t *testing.T) {
	cert := "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END KEY-----"
	text := NewText([]string{`pa"ss<word>`, cert, "", "pa"})
	j, _ := json.Marshal(`x pa"ss<word> y`)
	for _, in := range []string{
		`plain pa"ss<word> here`,
		fmt.Sprintf("%q", `pa"ss<word>`),
		string(j),
		fmt.Sprintf("%q", cert),
		"line: MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
	} {
		got := text.String(in)
		if strings.Contains(got, "ss<word") || strings.Contains(got, `ss\u003cword`) || strings.Contains(got, "MIIEvQ") {
			t.Errorf("%q → %q", in, got)
		}
		if !strings.Contains(got, Mask) {
			t.Errorf("%q → %q: no mask", in, got)
		}
	}
	// The longer value wins over one inside it.
	if got := text.String(`pa"ss<word>`); got != Mask {
		t.Errorf("got %q", got)
	}
	var nilText *Text
	if nilText.String("x") != "x" || NewText(nil).String("x") != "x" {
		t.Error("no values: text unchanged")
	}
}
