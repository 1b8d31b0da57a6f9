// Package complexity holds the tests that keep every function of krender
// (outside tests, hack/ and the fleet generator) at cyclomatic complexity
// 15 or less, as gocyclo counts it, and at 70 lines or fewer: past that a
// function is read as a list of cases rather than as steps, and its cases
// are hard to test one by one.
package complexity
