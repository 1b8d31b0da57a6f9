// Package report prints check's findings as text, JSON or SARIF. It stands
// apart from the linter so that what a run finds and how it is printed
// change separately.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/krender/krender/lint/rule"
	"github.com/krender/krender/model/filepos"
)

// Formats are the output formats of `krender check`.
var Formats = []string{"text", "json", "sarif"}

// Known says whether format is one of Formats: nil, or the error Write
// gives for it, so that a command refuses an unknown --format before it
// reads anything.
func Known(format string) error {
	if slices.Contains(Formats, format) {
		return nil
	}
	return fmt.Errorf("--format %q: want one of %s", format, strings.Join(Formats, ", "))
}

// Write prints findings in format.
func Write(w io.Writer, format string, fs []rule.Finding) error {
	switch format {
	case "text":
		return writeText(w, fs)
	case "json":
		return writeJSON(w, fs)
	case "sarif":
		return writeSARIF(w, fs)
	}
	return Known(format)
}

func writeText(w io.Writer, fs []rule.Finding) error {
	counts := map[filepos.Severity]int{}
	for _, f := range fs {
		counts[f.Severity]++
		where := []string{}
		if f.Object != "" {
			where = append(where, f.Object)
		}
		where = append(where, filepos.ScopeParts(nil, f.Tenants, 0)...) // render's wording
		scope := ""
		if len(where) > 0 {
			scope = " (" + strings.Join(where, "; ") + ")"
		}
		if _, err := fmt.Fprintf(w, "%s: %s: %s [%s]%s\n    fix: %s\n", f.Pos, f.Severity, f.Msg, f.Rule, scope, f.Fix); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "%s, %s, %s\n", plural(counts[filepos.Err], "error"), plural(counts[filepos.Warning], "warning"), plural(counts[filepos.Info], "note"))
	return err
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

type jsonFinding struct {
	Rule     string   `json:"rule"`
	Severity string   `json:"severity"`
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Column   int      `json:"column"`
	Object   string   `json:"object"`
	Zones    []string `json:"zones,omitempty"`
	Tenants  []string `json:"tenants,omitempty"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix"`
}

func writeJSON(w io.Writer, fs []rule.Finding) error {
	out := make([]jsonFinding, 0, len(fs))
	for _, f := range fs {
		out = append(out, jsonFinding{f.Rule, f.Severity.String(), f.Pos.File, f.Pos.Line, f.Pos.Col, f.Object, f.Zones, f.Tenants, f.Msg, f.Fix})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // read by people and tools, never embedded in HTML
	return enc.Encode(out)
}

// writeSARIF writes SARIF 2.1.0, which GitHub code scanning shows inline on
// pull requests.
func writeSARIF(w io.Writer, fs []rule.Finding) error {
	rep := sarif.NewReport()
	run := sarif.NewRunWithInformationURI("krender", "https://github.com/krender/krender")
	for _, r := range rule.All() {
		run.AddRule(r.ID).WithDescription(r.Summary).WithDefaultConfiguration(
			sarif.NewReportingConfiguration().WithLevel(sarifLevel(r.Severity)))
	}
	for _, f := range fs {
		region := sarif.NewRegion().WithStartLine(f.Pos.Line)
		if f.Pos.Col > 0 {
			region.WithStartColumn(f.Pos.Col)
		}
		run.CreateResultForRule(f.Rule).
			WithLevel(sarifLevel(f.Severity)).
			WithMessage(sarif.NewTextMessage(f.Msg + filepos.Scope(nil, f.Tenants, 0) + " Fix: " + f.Fix)).
			AddLocation(sarif.NewLocationWithPhysicalLocation(
				sarif.NewPhysicalLocation().
					WithArtifactLocation(sarif.NewSimpleArtifactLocation(f.Pos.File)).
					WithRegion(region)))
	}
	rep.AddRun(run)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // read by people and tools, never embedded in HTML
	return enc.Encode(rep)
}

func sarifLevel(s filepos.Severity) string {
	switch s {
	case filepos.Err:
		return "error"
	case filepos.Warning:
		return "warning"
	}
	return "note"
}
