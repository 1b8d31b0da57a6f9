package check

// RuleIDs are the rule ids, in table order: what `check.disable` and
// krender.io/ignore accept (the profile schema lists them).
func RuleIDs() []string { return ruleIDs() }
