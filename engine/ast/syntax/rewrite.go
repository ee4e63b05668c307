package syntax

import (
	"fmt"
	"strings"
)

// Template is a rewrite with $NAME and $$$NAME substituted from a match.
type Template struct {
	parts []tplPart
}

type tplPart struct {
	lit  string
	name string // a capture, when lit is ""
}

// PatternNames lists the metavariable names a pattern's text uses.
func PatternNames(pattern string) map[string]bool {
	names := map[string]bool{}
	for _, w := range strings.Fields(expand(pattern)) {
		for i := strings.Index(w, expando); i >= 0; i = strings.Index(w, expando) {
			w = strings.TrimLeft(w[i:], expando)
			k := 0
			for k < len(w) && (w[k] == '_' || w[k] >= 'A' && w[k] <= 'Z' || k > 0 && w[k] >= '0' && w[k] <= '9') {
				k++
			}
			if name := w[:k]; name != "" && name != "_" {
				names[name] = true
			}
			w = w[k:]
		}
	}
	return names
}

// ParseTemplate splits a rewrite into text and captures; every capture must
// be one the pattern binds.
func ParseTemplate(src string, names map[string]bool) (*Template, error) {
	t := &Template{}
	var lit strings.Builder
	for i := 0; i < len(src); i++ {
		if src[i] != '$' {
			lit.WriteByte(src[i])
			continue
		}
		j := i + 1
		if strings.HasPrefix(src[j:], "$$") {
			j += 2
		}
		k := j
		for k < len(src) && (src[k] == '_' || src[k] >= 'A' && src[k] <= 'Z' || k > j && src[k] >= '0' && src[k] <= '9') {
			k++
		}
		if k == j {
			lit.WriteByte('$')
			continue
		}
		name := src[j:k]
		if !names[name] {
			return nil, fmt.Errorf("the rewrite uses $%s, which the pattern does not capture", name)
		}
		t.parts = append(t.parts, tplPart{lit: lit.String()}, tplPart{name: name})
		lit.Reset()
		i = k - 1
	}
	t.parts = append(t.parts, tplPart{lit: lit.String()})
	return t, nil
}

// Expand fills the template from a match; lines after the first are
// indented like the line the match starts on, so a multi-line rewrite sits
// where the code it replaces sat.
func (t *Template) Expand(m Match, indent string) string {
	var b strings.Builder
	for _, p := range t.parts {
		if p.name != "" {
			b.WriteString(m.Captures[p.name])
			continue
		}
		b.WriteString(strings.ReplaceAll(p.lit, "\n", "\n"+indent))
	}
	return b.String()
}

// Replacement is one rewritten match: src[Start:End] becomes Text.
type Replacement struct {
	Start, End int
	Text       string
}

// Rewrite expands the template for each outermost match in t, in source
// order.
func Rewrite(p *Pattern, t *Tree, tpl *Template) []Replacement {
	var out []Replacement
	for _, m := range p.Find(t, true) {
		out = append(out, Replacement{m.Node.Start, m.Node.End, tpl.Expand(m, indentAt(t.Src, m.Node.Start))})
	}
	return out
}

// indentAt is the leading whitespace of the line holding offset off.
func indentAt(src []byte, off int) string {
	start := off
	for start > 0 && src[start-1] != '\n' {
		start--
	}
	end := start
	for end < off && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}
