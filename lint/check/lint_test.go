package check

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/krender/krender/lint/rule"
	"github.com/krender/krender/lint/validator"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/model/ruleid"
)

func TestWritesEtcHosts(t *testing.T) {
	for script, want := range map[string]bool{
		`echo "1.2.3.4 x" >> /etc/hosts`:      true,
		`echo x>/etc/hosts`:                   true,
		`cat extra | tee -a /etc/hosts`:       true,
		`sed -i '/x/d' /etc/hosts`:            true,
		`cp /tmp/hosts /etc/hosts`:            true,
		`cat /etc/hosts`:                      false,
		`grep fs /etc/hosts > /tmp/out`:       false,
		`sed 's/a/b/' /etc/hosts`:             false,
		`echo /etc/hosts; echo done > /tmp/x`: false,
		`echo x >> /etc/hosts.allow`:          false,
	} {
		if got := WritesEtcHosts(script); got != want {
			t.Errorf("WritesEtcHosts(%q) = %v, want %v", script, got, want)
		}
	}
}

func TestWatchedFile(t *testing.T) {
	cases := []struct{ script, dir, want string }{
		{"inotifywait -e modify /etc/config/app.conf", "/etc/config", "/etc/config/app.conf"},
		{"inotifywait -m -e create /etc/config", "/etc/config", ""},
		{"inotifywait -m '/etc/config/'", "/etc/config", ""},
		{"tail -f /etc/config/app.conf", "/etc/config", ""},
		{"inotifywait -e modify /etc/configuration/x", "/etc/config", ""},
	}
	for _, c := range cases {
		if got := watchedFile(c.script, c.dir); got != c.want {
			t.Errorf("watchedFile(%q, %q) = %q, want %q", c.script, c.dir, got, c.want)
		}
	}
}

// TestHasErrors: only error-level findings fail a check.
func TestHasErrors(t *testing.T) {
	if HasErrors([]Finding{{Severity: filepos.Info}}) || !HasErrors([]Finding{{Severity: filepos.Err}}) || HasErrors([]Finding{{Severity: filepos.Warning}}) {
		t.Fatal("HasErrors must look at error-level findings only")
	}
}

// TestEtcHostsErrorWithoutHold runs the rule on a set no stage has touched:
// the istio guard normally sets the hold first, so only here can the rule
// meet an istio pod without it.
func TestEtcHostsErrorWithoutHold(t *testing.T) {
	text := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: {sidecar.istio.io/inject: \"true\"}\nspec:\n  containers:\n    - name: app\n      image: app\n      args: [\"sh\", \"-c\", \"echo x >> /etc/hosts\"]\n"
	objs, err := manifest.Parse(manifest.NewSource("p.yaml", []byte(text)))
	if err != nil {
		t.Fatal(err)
	}
	l, err := New(&profiles.Profile{}, Config{Validator: validator.APIServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Apply(&manifest.Set{Objects: objs}); err != nil {
		t.Fatal(err)
	}
	fs := l.Findings()
	if len(fs) != 1 || fs[0].Rule != "etc-hosts-write" || fs[0].Severity != filepos.Err || fs[0].Pos.String() != "p.yaml:10:26" {
		t.Fatalf("findings: %+v", fs)
	}
}

// TestIgnoreEveryRuleCoversEveryRule keeps the golden cases that silence
// every rule by annotation honest (the check rules, then the stages' notes):
// a new rule must be added to one (and an object that triggers it), or this
// fails.
func TestIgnoreEveryRuleCoversEveryRule(t *testing.T) {
	ignored := map[string]bool{
		ruleid.InjectUnused:      true, // about no object: check.disable in ignore-stage-rules
		ruleid.UnusedVar:         true, // about no object: check.disable in ignore-stage-rules
		ruleid.SecretOutsideData: true, // render --redact only, after directives are stripped
	}
	for _, dir := range []string{"ignore-every-rule", "ignore-stage-rules"} {
		text, err := os.ReadFile("../../testdata/check/" + dir + "/app.yaml")
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`krender\.io/ignore: (.*)`).FindAllStringSubmatch(string(text), -1) {
			for _, id := range strings.Split(m[1], ",") {
				ignored[strings.TrimSpace(id)] = true
			}
		}
	}
	for _, r := range rule.All() {
		if !ignored[r.ID] {
			t.Errorf("rule %s is not silenced in testdata/check/ignore-every-rule or ignore-stage-rules: add it with an object that triggers it", r.ID)
		}
	}
}

// TestEveryCheckIsARule: a check whose id the table lacks would never run.
func TestEveryCheckIsARule(t *testing.T) {
	for id := range checks {
		if _, ok := rule.Lookup(id); !ok {
			t.Errorf("check %q is not in the rule table (lint/rule)", id)
		}
	}
}
