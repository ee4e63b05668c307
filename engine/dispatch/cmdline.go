package dispatch

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/agentic-workspace/aw/engine/gate"
)

// The gate names every staged call's resume as a command line too.
func init() { gate.CommandLine = CommandLine }

// CommandLine spells a call as an aw command line: `aw NOUN VERB ARG...
// --flag...` when every argument is one of the row's positional arguments
// or boolean flags, else `aw call TOOL 'JSON'`, which runs any call exactly.
func CommandLine(r gate.Resume) string {
	action, _ := r.Arguments["action"].(string)
	row, err := Find(r.Tool, action)
	if err != nil {
		return ""
	}
	if line, ok := row.shortForm(r.Arguments); ok {
		return line
	}
	raw, _ := json.Marshal(r.Arguments)
	return "aw call " + r.Tool + " " + shellQuote(string(raw))
}

func (a *Action) shortForm(args map[string]any) (string, bool) {
	words := []string{"aw", a.Tool.Noun, a.Verb()}
	used := 1 // "action"
	for _, name := range a.Args {
		v, ok := args[name].(string)
		if !ok {
			return "", false
		}
		words = append(words, shellQuote(v))
		used++
	}
	var flags []string
	for _, name := range a.Flags {
		switch v := args[name].(type) {
		case nil:
		case bool:
			if v {
				flags = append(flags, "--"+strings.ReplaceAll(name, "_", "-"))
			}
			used++
		default:
			return "", false
		}
	}
	if used != len(args) {
		return "", false
	}
	sort.Strings(flags)
	return strings.Join(append(words, flags...), " "), true
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=@%+-") == "" {
		return s
	}
	return fmt.Sprintf("'%s'", strings.ReplaceAll(s, "'", `'\''`))
}
