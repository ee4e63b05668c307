package dispatch

import (
	"context"
	"strings"
	"sync"

	"github.com/agentic-workspace/aw/engine/envelope"
)

// Vocabulary is how the caller names an action's options. Engine messages
// name them the command line's way, as flags (--max-results) and
// positional metavariables (PATH); a caller that sends JSON (aw mcp,
// aw call) reads argument names instead (max_results, path). Run renames
// them in the summary, the error message and the retention facts, so no
// message is written twice. A command line quoted in backquotes
// (`aw inspect read F --start 9`) is left as it is: it is something to run.
type Vocabulary uint8

const (
	// Flags: the command line's spelling (the engine's own).
	Flags Vocabulary = iota
	// Arguments: the JSON request's argument names.
	Arguments
)

type vocabularyKey struct{}

// WithVocabulary makes the actions run with ctx speak v.
func WithVocabulary(ctx context.Context, v Vocabulary) context.Context {
	return context.WithValue(ctx, vocabularyKey{}, v)
}

func vocabularyOf(ctx context.Context) Vocabulary {
	v, _ := ctx.Value(vocabularyKey{}).(Vocabulary)
	return v
}

// FlagNames, set by the command line front end, maps an action's flags
// to the arguments they set ("start" -> "start_line"), as its flags are
// bound. Without it only a flag spelled like its argument is renamed.
var FlagNames func(a *Action) map[string]string

// flagNames is FlagNames per action, worked out on first use (only a JSON
// caller needs it), plus each flag every action that has it agrees on,
// for a message naming another action's flag.
var flagNames = sync.OnceValue(func() (m struct {
	of  map[*Action]map[string]string
	any map[string]string
}) {
	m.of, m.any = map[*Action]map[string]string{}, map[string]string{}
	if FlagNames == nil {
		return m
	}
	conflict := map[string]bool{}
	for _, a := range Table() {
		m.of[a] = FlagNames(a)
		for f, arg := range m.of[a] {
			if old, ok := m.any[f]; ok && old != arg {
				conflict[f] = true
			}
			m.any[f] = arg
		}
	}
	for f := range conflict {
		delete(m.any, f)
	}
	return m
})

// argumentFor is the argument a flag named in a's messages sets.
func (a *Action) argumentFor(flag string) (string, bool) {
	names := flagNames()
	if arg, ok := names.of[a][flag]; ok {
		return arg, true
	}
	if arg, ok := names.any[flag]; ok {
		return arg, true
	}
	if same := strings.ReplaceAll(flag, "-", "_"); a.hasField(same) {
		return same, true
	}
	return "", false
}

// hasField reports whether the action's request has the argument name.
func (a *Action) hasField(name string) bool {
	for _, f := range fieldNames(a.NewRequest()) {
		if f == name {
			return true
		}
	}
	return false
}

// speak renames the envelope's options into v.
func (a *Action) speak(env *envelope.Envelope, v Vocabulary) {
	if v != Arguments {
		return
	}
	env.Summary = a.toArguments(env.Summary)
	if env.Error != nil {
		env.Error.Message = a.toArguments(env.Error.Message)
	}
	for i, f := range env.Retention.Facts {
		env.Retention.Facts[i] = a.toArguments(f)
	}
}

// toArguments renames flags (--name) and metavariables (PATH) outside
// backquotes into the arguments they set; a name the action does not know
// is left as it is.
func (a *Action) toArguments(s string) string {
	if !strings.Contains(s, "--") && !strings.ContainsFunc(s, isUpper) {
		return s
	}
	var b strings.Builder
	quoted := false
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '`':
			quoted = !quoted
		case quoted:
		case c == '-' && strings.HasPrefix(s[i:], "--") && (i == 0 || boundary(s[i-1])):
			j := i + 2
			for j < len(s) && (isLowerAlnum(s[j]) || s[j] == '-' && j > i+2) {
				j++
			}
			if arg, ok := a.argumentFor(s[i+2 : j]); ok && j > i+2 {
				b.WriteString(arg)
				i = j
				continue
			}
		case isUpper(rune(c)) && (i == 0 || boundary(s[i-1])):
			j := i
			for j < len(s) && (isUpper(rune(s[j])) || s[j] == '_') {
				j++
			}
			if word := s[i:j]; j-i >= 3 && (j == len(s) || boundary(s[j])) && a.hasField(strings.ToLower(word)) {
				b.WriteString(strings.ToLower(word))
				i = j
				continue
			}
			b.WriteString(s[i:j])
			i = j
			continue
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

func isUpper(r rune) bool      { return r >= 'A' && r <= 'Z' }
func isLowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// boundary is a byte that may stand before or after a name.
func boundary(c byte) bool {
	return c == ' ' || c == '(' || c == ')' || c == ',' || c == ';' || c == ':' || c == '.' || c == '\n' || c == '[' || c == ']' || c == '"' || c == '\''
}
