package workload

import "testing"

func TestEtcHostsWrite(t *testing.T) {
	for script, want := range map[string]bool{
		`echo "$ip efs" >> "/etc/hosts"`:       true,
		`echo x >| /etc/hosts`:                 true,
		`sed -Ei 's/a/b/' /etc/hosts`:          true,
		`sed --in-place '/x/d' /etc/hosts`:     true,
		`cp /tmp/hosts /etc/hosts && exec app`: true,
		`install -m 644 hosts '/etc/hosts'`:    true,
		`cp /etc/hosts /tmp/hosts`:             false,
		`grep -q efs /etc/hosts || exit 1`:     false,
		`echo x > /etc/hosts.bak`:              false,
		`tee /tmp/out < /etc/hosts`:            false,
	} {
		if got := EtcHostsWrite(script) != nil; got != want {
			t.Errorf("EtcHostsWrite(%q) found a write: %v, want %v", script, got, want)
		}
	}
	script := "cat /etc/hosts\nprintf 'x\\n' | tee -a /etc/hosts\n"
	if loc := EtcHostsWrite(script); loc == nil || script[loc[0]:loc[0]+3] != "tee" {
		t.Errorf("the write starts at tee, got %v", loc)
	}
}
