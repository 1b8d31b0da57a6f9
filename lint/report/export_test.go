package report

// JSONFinding is a finding as --format json writes it, for the tests of
// package report_test, which run check's action (it imports report).
type JSONFinding = jsonFinding
