package policy

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// The option tables are data: gremlins mutates Go operators, not the
// rows of a table held in a string. TestToolRuleExamples/EveryRowIsNeeded
// mutates the rows instead, so that a row cannot lose what it does
// unnoticed:
//
//   - every row with an effect loses it in place (write becomes nothing,
//     run becomes nothing) and some line that used the row must then get
//     another verdict: a refused line allowed, or refused for another
//     reason;
//   - every row whose value is checked and let through (read, write,
//     wdir, target, chdir, check:NAME, inner, rest) is also used by a line
//     that is allowed: the check passes what it should.
//
// A row without an effect is not required to have a line: deleting it
// makes its option unknown, and an unknown option is refused (the tables
// fail closed), so no deletion there can let anything through.
//
// The lines are each rule's own allow and refuse examples and the variants
// of TestToolRuleVariants. Git's own option listing (generated from git)
// is not a rule; git's rows are its global options and the overlay's,
// which give git's options their effects.

// ruleRow is one line of an option table, with the parsed options it
// became (one per table it is part of: goBuild's lines are in several).
type ruleRow struct {
	rule, line string
	eff        effect
	opts       []*optSpec
}

// probe is a line checked with its settings, what it must get (for a
// rule's own example: "" allowed, else "refused" or the reason), and what
// it got and used.
type probe struct {
	rule, line, want string
	ws               *workspace.Workspace
	req              Request
	got              Verdict
	used             map[*optSpec]bool
}

func (p *probe) check() Verdict { return Check(p.ws, p.req) }

// exampleProbes are every rule's own allow and refuse examples, checked in
// a workspace that allows the tool itself.
func exampleProbes(t *testing.T) []*probe {
	var out []*probe
	for _, spec := range uniqueSpecs() {
		ws := exampleWS(t, spec.names)
		for _, line := range spec.allow {
			out = append(out, &probe{rule: spec.names[0], line: line, ws: ws, req: Request{Line: line}})
		}
		for _, ex := range spec.refuse {
			reason, line, ok := strings.Cut(ex, ": ")
			if !ok || !strings.Contains(reason, "-") || strings.Contains(reason, " ") {
				reason, line = "refused", ex
			}
			out = append(out, &probe{rule: spec.names[0], line: line, want: reason, ws: ws, req: Request{Line: line}})
		}
	}
	return out
}

// variantProbes are the lines of TestToolRuleVariants.
func variantProbes(t *testing.T) []*probe {
	var out []*probe
	for _, tc := range variants {
		ws := corpusWS(t)
		if tc.sh {
			ws.Settings.Commands.Interpreter = "sh"
		}
		if tc.setup == nil {
			tc.setup = variantAllow
		}
		tc.setup(&ws.Settings)
		out = append(out, &probe{line: tc.line, ws: ws, req: Request{Line: tc.line, Argv: tc.argv}})
	}
	return out
}

// record checks each probe once, noting the option rows it used.
func record(probes []*probe) []*probe {
	var cur *probe
	optionUse = func(o *optSpec) { cur.used[o] = true }
	defer func() { optionUse = nil }()
	for _, p := range probes {
		cur = p
		p.used = map[*optSpec]bool{}
		p.got = p.check()
	}
	return probes
}

// tableRows are the rows of every built-in table, each found in its
// parsed table by its first name.
func tableRows(t *testing.T) []*ruleRow {
	byKey := map[string]*ruleRow{}
	var rows []*ruleRow
	add := func(rule string, spec *toolSpec, text string) {
		tab, err := spec.table()
		if err != nil {
			t.Fatalf("%s: %v", rule, err)
		}
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			o, err := parseOptLine(line, spec.mode == expression)
			if err != nil {
				t.Fatalf("%s: %q: %v", rule, line, err)
			}
			var in *optSpec
			switch {
			case len(o.long) > 0:
				in = tab.long[o.long[0]]
			case len(o.short) > 0:
				in = tab.short[o.short[0]]
			case len(o.multi) > 0:
				in = tab.multi[o.multi[0]]
			}
			if in == nil {
				continue // a "*" overlay line for an option this git subcommand lacks
			}
			key := rule + "\x00" + line
			r := byKey[key]
			if r == nil {
				r = &ruleRow{rule: rule, line: line, eff: o.eff}
				byKey[key] = r
				rows = append(rows, r)
			}
			r.opts = append(r.opts, in)
		}
	}
	for _, spec := range uniqueSpecs() {
		add(spec.names[0], spec, spec.opts)
	}
	for _, subs := range []map[string]string{goSubs, goModSubs} {
		for sub, text := range subs {
			if strings.HasPrefix(text, "!") || text == "mod" || text == "work" {
				continue
			}
			spec := goSubSpec(sub, text)
			if text == "test" {
				text = goBuild + "\n" + goTest()
			}
			add("go", spec, text)
		}
	}
	// An overlay shared by several subcommands (revisionOptions) is one
	// rule, named after its first key.
	shared := map[string]string{}
	for _, key := range slices.Sorted(maps.Keys(gitOverlay())) {
		if _, ok := shared[gitOverlay()[key]]; !ok {
			shared[gitOverlay()[key]] = "git " + strings.TrimSpace(key)
		}
	}
	for sub := range gitSections() {
		spec := gitSub(sub)
		for _, key := range []string{sub, sub + " ", "*"} {
			if ov := gitOverlay()[key]; ov != "" {
				add(shared[ov], spec, ov)
			}
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].rule != rows[j].rule {
			return rows[i].rule < rows[j].rule
		}
		return rows[i].line < rows[j].line
	})
	return rows
}

// everyRowIsNeeded judges the rows by probes that record has checked.
func everyRowIsNeeded(t *testing.T, probes []*probe) {
	rows := tableRows(t)
	uses := func(p *probe, r *ruleRow) bool {
		for _, o := range r.opts {
			if p.used[o] {
				return true
			}
		}
		return false
	}
	unused, unstripped, plainRows := 0, 0, 0
	for _, r := range rows {
		switch r.eff {
		case eRead, eWrite, eWdir, eTarget, eChdir, eCheck, eInner, eRest:
			allowed := false
			for _, p := range probes {
				if p.got.Allowed && uses(p, r) {
					allowed = true
					break
				}
			}
			if !allowed {
				unused++
				t.Errorf("%s row %q: no allowed line uses it, so nothing shows its check lets a good value through; add an allow example", r.rule, r.line)
			}
		}
		if r.eff == plain {
			plainRows++
			continue
		}
		saved := make([]optSpec, len(r.opts))
		for i, o := range r.opts {
			saved[i] = *o
			o.eff, o.check = plain, ""
		}
		changed := false
		for _, p := range probes {
			if uses(p, r) {
				if v := p.check(); v.Allowed != p.got.Allowed || v.Reason != p.got.Reason {
					changed = true
					break
				}
			}
		}
		for i, o := range r.opts {
			*o = saved[i]
		}
		if !changed {
			unstripped++
			t.Errorf("%s row %q: no line's verdict changes when its effect is taken away; add a refuse example that needs it", r.rule, r.line)
		}
	}
	t.Logf("%d rows (%d without an effect), %d lines; %d rows with a checked value no allowed line uses, %d whose effect no line needs", len(rows), plainRows, len(probes), unused, unstripped)
}
