// Package compact is the compressor side of the agentic-workspace/v1
// protocol: it shrinks an envelope for a compacted transcript
// while keeping what an agent needs to resume — summary, facts, error,
// artifact references, and the data keys the importance rule recognises,
// with resume calls verbatim. Harness authors import it; `aw envelope
// compact` is the same code as a filter. It never reads files and never
// decides policy; anything that is not an envelope passes through unchanged.
package compact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Compaction limits: the default budget, the summary clip, and the facts
// kept normally and when still over budget.
const (
	DefaultBudget      = 12000 // characters of compacted JSON
	MaxSummaryChars    = 4000
	MaxFacts           = 60
	MaxFactsOverBudget = 30
	envelopeProtocol   = "agentic-workspace/v1"
	recoveryFieldsKey  = "recoveryFields"
	recoveryOmittedKey = "recoveryFieldsOmitted"
)

// Result is one compacted value.
type Result struct {
	// JSON is the compacted envelope (or the input, unchanged, when it is
	// not an envelope).
	JSON []byte
	// Envelope reports whether the input was an envelope (directly or as a
	// JSON string holding one).
	Envelope bool
	// Recovery reports that the normal compaction was still over budget and
	// data became the recovery-field list.
	Recovery bool
	// Chars are the input's and the output's lengths in characters.
	InputChars, Chars int
}

// Compact compacts one JSON value: an envelope object, or a JSON string
// whose text is one. budget <= 0 means DefaultBudget.
func Compact(raw []byte, budget int) (Result, error) {
	if budget <= 0 {
		budget = DefaultBudget
	}
	raw = bytes.TrimSpace(raw)
	v, err := decode(raw)
	if err != nil {
		return Result{}, fmt.Errorf("not JSON: %v", err)
	}
	res := Result{JSON: raw, InputChars: utf8.RuneCount(raw), Chars: utf8.RuneCount(raw)}
	if s, ok := v.(string); ok {
		// An envelope inside a JSON string (a tool result's text).
		inner, err := decode([]byte(strings.TrimSpace(s)))
		if err != nil {
			return res, nil
		}
		v = inner
	}
	env, ok := v.(*object)
	if !ok || !isEnvelope(env) {
		return res, nil
	}
	out, recovery := compactEnvelope(env, budget)
	js := encode(out)
	res.JSON, res.Envelope, res.Recovery, res.Chars = js, true, recovery, utf8.RuneCount(js)
	return res, nil
}

// Text compacts a tool result's text: an envelope (as JSON or as a JSON
// string) becomes its compacted JSON; any other text is returned unchanged.
func Text(s string, budget int) string {
	r, err := Compact([]byte(s), budget)
	if err != nil || !r.Envelope {
		return s
	}
	return string(r.JSON)
}

func isEnvelope(o *object) bool {
	p, _ := o.get("protocol")
	return p == envelopeProtocol
}

// The importance rule: a data key is kept when it is one of these names,
// ends with a suffix or starts with a prefix. The gate's keys (approval ...
// pendingApprovals) are in the names so a pending approval survives.
var (
	importantNames = set("id", "status", "mode", "title", "kind", "destructive", "plan", "files", "commands",
		"approval", "approvals", "plans", "activePlan", "pendingPlan", "pendingApprovals")
	importantSuffixes = []string{"id", "Id", "path", "Path", "status", "count", "url", "sha256"}
	importantPrefixes = []string{"transaction", "run", "job", "task", "todo", "board", "research", "source", "query", "checkpoint"}
)

// resumeKey holds a resume call: its tool and every argument are kept verbatim.
const resumeKey = "resume"

// IsImportantKey reports whether normal compaction keeps a data key.
func IsImportantKey(key string) bool {
	if importantNames[key] {
		return true
	}
	for _, s := range importantSuffixes {
		if strings.HasSuffix(key, s) {
			return true
		}
	}
	for _, p := range importantPrefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// isRecoveryKey is what the over-budget walker records: ids and
// id-suffixed fields, statuses, paths, URLs and hashes — never titles or
// free text.
func isRecoveryKey(key string) bool {
	if key == "id" || key == "status" {
		return true
	}
	for _, s := range []string{"id", "Id", "path", "Path", "url", "sha256"} {
		if strings.HasSuffix(key, s) {
			return true
		}
	}
	return false
}

func isIDKey(key string) bool {
	return key == "id" || strings.HasSuffix(key, "Id") || strings.HasSuffix(key, "id")
}

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// compactEnvelope omits the declared paths; keeps the envelope's own fields
// (summary clipped, facts capped), error, artifacts and recognised data keys;
// and, if that is still over budget, replaces data with the recovery-field
// list (re-attaching a staged approval).
func compactEnvelope(env *object, budget int) (*object, bool) {
	env = env.clone()
	var omit []string
	if ret, ok := env.getObject("retention"); ok {
		if list, ok := ret.get("omit_when_summarizing"); ok {
			if arr, ok := list.([]any); ok {
				for _, p := range arr {
					if s, ok := p.(string); ok {
						omit = append(omit, s)
					}
				}
			}
		}
	}
	for _, p := range omit {
		removePath(env, strings.Split(p, "."))
	}
	out := &object{}
	for _, k := range env.keys {
		v := env.vals[k]
		switch k {
		case "summary":
			if s, ok := v.(string); ok {
				v = clipChars(s, MaxSummaryChars)
			}
			out.set(k, v)
		case "retention":
			out.set(k, retention(v, MaxFacts))
		case "data":
			out.set(k, importantValue(v))
		case "protocol", "ok", "operation", "error", "artifacts":
			out.set(k, v)
		}
		// Anything else an envelope carries is not part of the contract.
	}
	if size(out) <= budget {
		return out, false
	}
	// Over budget: the recovery-field list.
	rec := &object{}
	for _, k := range out.keys {
		v := out.vals[k]
		switch k {
		case "retention":
			rec.set(k, retention(v, MaxFactsOverBudget))
		case "data":
			rec.set(k, recoveryData(env.vals["data"], budget, rec))
		default:
			rec.set(k, v)
		}
	}
	return rec, true
}

func retention(v any, maxFacts int) any {
	r, ok := v.(*object)
	if !ok {
		return v
	}
	out := &object{}
	if imp, ok := r.get("importance"); ok {
		out.set("importance", imp)
	}
	if facts, ok := r.get("facts"); ok {
		if arr, ok := facts.([]any); ok && len(arr) > maxFacts {
			facts = arr[:maxFacts]
		}
		out.set("facts", facts)
	}
	return out
}

// importantValue copies v keeping only recognised keys, recursing only
// through them; arrays keep every element, filtered the same way.
func importantValue(v any) any {
	switch x := v.(type) {
	case *object:
		out := &object{}
		for _, k := range x.keys {
			switch {
			case k == resumeKey:
				out.set(k, resumeValue(x.vals[k]))
			case IsImportantKey(k):
				out.set(k, importantValue(x.vals[k]))
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = importantValue(e)
		}
		return out
	}
	return v
}

// resumeValue keeps resume.tool and every resume.arguments entry verbatim.
func resumeValue(v any) any {
	r, ok := v.(*object)
	if !ok {
		return v
	}
	out := &object{}
	for _, k := range []string{"tool", "arguments"} {
		if x, ok := r.get(k); ok {
			out.set(k, x)
		}
	}
	return out
}

// recoveryData is data on the over-budget path: status and mode, the
// staged approval with its resume call, and "path=value" entries for every
// recovery field anywhere in data. Id entries are never dropped; others go
// from the end while the envelope is over budget.
func recoveryData(data any, budget int, env *object) any {
	out := &object{}
	if d, ok := data.(*object); ok {
		for _, k := range []string{"status", "mode"} {
			if v, ok := d.get(k); ok && isScalar(v) {
				out.set(k, v)
			}
		}
		if a, ok := d.get("approval"); ok {
			out.set("approval", importantValue(a))
		}
	}
	type field struct {
		text string
		id   bool
	}
	var fields []field
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch x := v.(type) {
		case *object:
			for _, k := range x.keys {
				p := k
				if path != "" {
					p = path + "." + k
				}
				val := x.vals[k]
				if isScalar(val) && val != nil && isRecoveryKey(k) {
					fields = append(fields, field{p + "=" + scalarText(val), isIDKey(k)})
					continue
				}
				walk(val, p)
			}
		case []any:
			for i, e := range x {
				walk(e, fmt.Sprintf("%s.%d", path, i))
			}
		}
	}
	walk(data, "data")
	list := make([]any, 0, len(fields))
	for _, f := range fields {
		list = append(list, f.text)
	}
	env.set("data", out)
	// Drop non-id fields from the end until the envelope fits; each entry
	// costs its text plus quotes and a comma.
	dropped := 0
	for {
		list := make([]any, 0, len(fields))
		for _, f := range fields {
			list = append(list, f.text)
		}
		out.set(recoveryFieldsKey, list)
		if dropped > 0 {
			out.set(recoveryOmittedKey, dropped)
		}
		over := size(env) - budget
		if over <= 0 {
			break
		}
		n := 0
		for i := len(fields) - 1; i >= 0 && over > 0; i-- {
			if fields[i].id {
				continue
			}
			over -= utf8.RuneCountInString(fields[i].text) + 3
			fields = append(fields[:i], fields[i+1:]...)
			n++
		}
		if n == 0 {
			break // only ids are left: they stay, whatever the budget
		}
		dropped += n
	}
	return out
}

func isScalar(v any) bool {
	switch v.(type) {
	case *object, []any:
		return false
	}
	return true
}

func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}

// removePath deletes a dotted path; numeric elements index arrays and "*"
// (or "[]") spans every element.
func removePath(v any, path []string) {
	if len(path) == 0 {
		return
	}
	switch x := v.(type) {
	case *object:
		if len(path) == 1 {
			x.del(path[0])
			return
		}
		if next, ok := x.get(path[0]); ok {
			removePath(next, path[1:])
		}
	case []any:
		if path[0] == "*" || path[0] == "[]" {
			for _, e := range x {
				removePath(e, path[1:])
			}
			return
		}
		var i int
		if _, err := fmt.Sscanf(path[0], "%d", &i); err == nil && i >= 0 && i < len(x) && len(path) > 1 {
			removePath(x[i], path[1:])
		}
	}
}

func clipChars(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func size(o *object) int { return utf8.RuneCount(encode(o)) }
