// Package rule holds the command-policy values that live in settings
// (commands.denyPatterns, with their examples) and the quote-respecting
// tokenizer both the settings check and the policy use. It has no
// dependency on the workspace, so the workspace can validate settings with
// it when they load; it never runs anything.
package rule

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Pattern is one commands.denyPatterns entry. In a settings file it is a
// string ("git push --force", or "/^npm publish\b/" for a regex), or an
// object that also carries examples the rule must and must not match:
//
//	{"pattern": "git push --force", "match": ["git push --force origin"], "noMatch": ["git push"]}
//
// A string matches when a command's argv starts with its tokens (the
// executable by basename, case-insensitively); a /regex/ is tested against
// the argv joined with single spaces (RE2; a trailing i folds case).
type Pattern struct {
	Pattern string   `json:"pattern"`
	Match   []string `json:"match,omitempty"`
	NoMatch []string `json:"noMatch,omitempty"`
}

// Patterns is the commands.denyPatterns list.
type Patterns []Pattern

// UnmarshalJSON accepts a string or an object.
func (p *Pattern) UnmarshalJSON(raw []byte) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return err
		}
		*p = Pattern{Pattern: s}
		return nil
	}
	type plain Pattern
	var v plain
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf(`a deny pattern is a string or {"pattern": "...", "match": [...], "noMatch": [...]}: %v`, err)
	}
	*p = Pattern(v)
	return nil
}

// MarshalJSON writes the short string form when there are no examples.
func (p Pattern) MarshalJSON() ([]byte, error) {
	if len(p.Match) == 0 && len(p.NoMatch) == 0 {
		return json.Marshal(p.Pattern)
	}
	type plain Pattern
	return json.Marshal(plain(p))
}

// MarshalJSON writes [] for an empty list.
func (ps Patterns) MarshalJSON() ([]byte, error) {
	if ps == nil {
		return []byte("[]"), nil
	}
	return json.Marshal([]Pattern(ps))
}

// Matcher is a compiled Pattern.
type Matcher struct {
	Source string
	prefix []string
	re     *regexp.Regexp
	// need is text every argv the regex matches holds within one word
	// (a space-free piece of its literal prefix): argv without it is
	// not joined and searched. first: the regex is anchored and need is
	// the start of its prefix, so the executable's word begins with it.
	need  string
	first bool
}

// Compile checks the pattern's form (not its examples).
func (p Pattern) Compile() (*Matcher, error) {
	src := strings.TrimSpace(p.Pattern)
	if src == "" {
		return nil, fmt.Errorf("the pattern is empty")
	}
	m := &Matcher{Source: p.Pattern}
	if body, flags, ok := regexForm(src); ok {
		if flags == "i" {
			body = "(?i)" + body
		}
		re, err := regexp.Compile(body)
		if err != nil {
			return nil, fmt.Errorf("the regex does not compile: %v", err)
		}
		m.re = re
		m.need, m.first = required(body)
		return m, nil
	}
	toks, err := Words(src)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, fmt.Errorf("the pattern has no words")
	}
	m.prefix = toks
	return m, nil
}

func regexForm(s string) (body, flags string, ok bool) {
	if len(s) < 2 || s[0] != '/' {
		return "", "", false
	}
	if strings.HasSuffix(s, "/i") && len(s) >= 3 {
		return s[1 : len(s)-2], "i", true
	}
	if strings.HasSuffix(s, "/") {
		return s[1 : len(s)-1], "", true
	}
	return "", "", false
}

// Match reports whether argv is refused by the pattern.
func (m *Matcher) Match(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	if m.re != nil {
		base := Base(argv[0])
		switch {
		case m.need == "":
		case m.first:
			if !strings.HasPrefix(argv[0], m.need) && !strings.HasPrefix(base, m.need) {
				return false
			}
		case !strings.Contains(base, m.need) && !slices.ContainsFunc(argv, func(a string) bool { return strings.Contains(a, m.need) }):
			return false
		}
		joined := strings.Join(argv, " ")
		if m.re.MatchString(joined) {
			return true
		}
		return base != argv[0] && m.re.MatchString(base+joined[len(argv[0]):])
	}
	if len(argv) < len(m.prefix) {
		return false
	}
	if !strings.EqualFold(Base(argv[0]), Base(m.prefix[0])) {
		return false
	}
	for i := 1; i < len(m.prefix); i++ {
		if argv[i] != m.prefix[i] {
			return false
		}
	}
	return true
}

// required is a space-free piece of the literal text every match of the
// regex body begins with ("" when there is none): a match lies in argv
// joined with spaces, and a space-free piece of it lies within one word.
// Dropping a leading ^ only adds matches, so what the rest requires the
// whole does; with the ^, the prefix starts the joined text, so its first
// piece starts the executable's word (first).
func required(body string) (need string, first bool) {
	rest, anchored := strings.CutPrefix(body, "^")
	re, err := regexp.Compile(rest)
	if err != nil {
		return "", false
	}
	lit, _ := re.LiteralPrefix()
	if head, _, _ := strings.Cut(lit, " "); anchored && head != "" {
		return head, true
	}
	for _, piece := range strings.Split(lit, " ") {
		if len(piece) > len(need) {
			need = piece
		}
	}
	return need, false
}

// Base is the executable's basename, the form allow and deny compare.
func Base(exe string) string {
	exe = strings.TrimRight(exe, "/")
	if i := strings.LastIndexByte(exe, '/'); i >= 0 {
		exe = exe[i+1:]
	}
	return path.Clean(exe)
}

// Validate compiles every pattern and checks its examples: each match
// example must be refused by it and each noMatch example must not. The
// error names the rule by its position and text.
func (ps Patterns) Validate() error {
	for i, p := range ps {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("rule %d (%q): %s", i+1, p.Pattern, fmt.Sprintf(format, args...))
		}
		m, err := p.Compile()
		if err != nil {
			return bad("%v", err)
		}
		for _, ex := range p.Match {
			argv, err := Words(ex)
			if err != nil {
				return bad("match example %q: %v", ex, err)
			}
			if !m.Match(argv) {
				return bad("its match example %q does not match; fix the pattern or the example", ex)
			}
		}
		for _, ex := range p.NoMatch {
			argv, err := Words(ex)
			if err != nil {
				return bad("noMatch example %q: %v", ex, err)
			}
			if m.Match(argv) {
				return bad("its noMatch example %q matches; fix the pattern or the example", ex)
			}
		}
	}
	return nil
}

// Compile compiles every pattern (Validate has already passed when
// settings loaded, so errors here are settings built in code).
func (ps Patterns) Compile() ([]*Matcher, error) {
	out := make([]*Matcher, 0, len(ps))
	for i, p := range ps {
		m, err := p.Compile()
		if err != nil {
			return nil, fmt.Errorf("rule %d (%q): %v", i+1, p.Pattern, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// MayMatchExecutable reports whether the pattern could refuse some argv
// of exe: a regex always could, a prefix pattern only for its executable.
func (m *Matcher) MayMatchExecutable(exe string) bool {
	if m.re != nil {
		// /^npm publish\b/ can only match npm; any other regex might
		// match anything.
		body, flags, _ := regexForm(strings.TrimSpace(m.Source))
		if rest, ok := strings.CutPrefix(body, "^"); ok && flags == "" {
			if re, err := regexp.Compile(rest); err == nil {
				if lit, _ := re.LiteralPrefix(); lit != "" {
					word, _, _ := strings.Cut(lit, " ")
					return len(lit) <= len(word) && strings.HasPrefix(exe, lit) || word == exe && len(lit) > len(word)
				}
			}
		}
		return true
	}
	return len(m.prefix) > 0 && strings.EqualFold(Base(m.prefix[0]), exe)
}
