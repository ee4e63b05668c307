package policy

import (
	"sort"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// exampleWS is the corpus fixture with the tool itself allowed (and not
// denied), so that its examples test the tool's rule and nothing else.
func exampleWS(t testing.TB, names []string) *workspace.Workspace {
	ws := fixture(t)
	c := &ws.Settings.Commands
	for _, n := range names {
		c.Allow = append(c.Allow, n)
	}
	var deny []string
	for _, d := range c.Deny {
		keep := true
		for _, n := range names {
			keep = keep && d != n
		}
		if keep {
			deny = append(deny, d)
		}
	}
	c.Deny = deny
	return ws
}

func uniqueSpecs() []*toolSpec {
	seen := map[*toolSpec]bool{}
	var out []*toolSpec
	for _, s := range toolSpecs() {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].names[0] < out[j].names[0] })
	return out
}

// TestToolRuleExamples loads every tool rule and runs the argv lines it
// must allow and must refuse (Codex execpolicy's match / not_match): a
// rule whose example disagrees fails here, naming the rule and the line.
func TestToolRuleExamples(t *testing.T) {
	total := 0
	for _, spec := range uniqueSpecs() {
		if _, err := spec.table(); err != nil {
			t.Errorf("%v", err)
			continue
		}
		if len(spec.allow)+len(spec.refuse) == 0 && spec.names[0] != "sh" {
			t.Errorf("the %s rule has no examples", spec.names[0])
		}
		ws := exampleWS(t, spec.names)
		for _, line := range spec.allow {
			total++
			if v := Check(ws, Request{Line: line}); !v.Allowed {
				t.Errorf("%s rule: its allow example %q is refused (%s): %s", spec.names[0], line, v.Reason, v.Message)
			}
		}
		for _, ex := range spec.refuse {
			total++
			reason, line, ok := strings.Cut(ex, ": ")
			if !ok || !strings.Contains(reason, "-") || strings.Contains(reason, " ") {
				reason, line = "", ex
			}
			v := Check(ws, Request{Line: line})
			switch {
			case v.Allowed:
				t.Errorf("%s rule: its refuse example %q is allowed", spec.names[0], line)
			case reason != "" && v.Reason != reason:
				t.Errorf("%s rule: its refuse example %q is refused as %s, the example says %s: %s", spec.names[0], line, v.Reason, reason, v.Message)
			case v.Message == "":
				t.Errorf("%s rule: %q is refused without a message", spec.names[0], line)
			}
		}
	}
	for sub, spec := range gitSubs() {
		if _, err := spec.table(); err != nil {
			t.Errorf("git %s: %v", sub, err)
		}
	}
	t.Logf("%d tool rules, %d examples, %d git subcommand tables", len(uniqueSpecs()), total, len(gitSubs()))
}

// TestRuleTableErrors: a table that does not parse fails closed.
func TestRuleTableErrors(t *testing.T) {
	for _, opts := range []string{"-o|--out=F bogus", "-o\n-o", "--x write", "oops"} {
		spec := &toolSpec{names: []string{"broken"}, opts: opts}
		if _, err := spec.table(); err == nil {
			t.Errorf("%q parsed", opts)
		}
	}
	spec := &toolSpec{names: []string{"echo"}, opts: "-o write"}
	ws := fixture(t)
	c := &checker{ws: ws, allow: map[string]bool{}, deny: map[string]bool{}, seen: map[string]bool{}, dirs: []string{"."}}
	if c.runSpec(spec, "echo", nil, 0); !c.refused || c.v.Reason != NotAllowed {
		t.Errorf("a broken table must refuse: %+v", c.v)
	}
}
