package commands

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/itchyny/gojq"

	"github.com/agentic-workspace/aw/engine/envelope"
)

// The scripting filters, as gh has them: --fields a,b prints only those
// fields of the envelope's data (a field the action does not return is
// null), --jq EXPR runs a jq expression over the envelope (or over the
// selected fields) and prints each result on its own line, strings raw.
// They change what is printed, never what runs or the exit code.

// parseFilters checks --jq before anything runs: a bad expression is a
// usage error, not a half-done call.
func (a *app) parseFilters() error {
	if a.jq == "" || a.query != nil {
		return nil
	}
	q, err := gojq.Parse(a.jq)
	if err == nil {
		a.query, err = gojq.Compile(q)
	}
	if err != nil {
		return envelope.Errorf(envelope.InvalidInput, "--jq %q is not a jq expression: %v", a.jq, err)
	}
	return nil
}

// filtering reports whether --jq or --fields decide the output.
func (a *app) filtering() bool { return a.jq != "" || a.fields != "" }

// writeFiltered prints env through --fields and --jq.
func (a *app) writeFiltered(w io.Writer, env envelope.Envelope) error {
	raw, err := json.Marshal(env)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	if a.fields != "" {
		data, _ := v.(map[string]any)["data"].(map[string]any)
		picked := map[string]any{}
		for _, f := range strings.Split(a.fields, ",") {
			if f = strings.TrimSpace(f); f != "" {
				picked[f] = data[f]
			}
		}
		v = picked
	}
	if a.query == nil {
		return writeJSON(w, v, a.pretty)
	}
	iter := a.query.Run(v)
	for {
		r, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, ok := r.(error); ok {
			return fmt.Errorf("--jq: %w", err)
		}
		if s, ok := r.(string); ok {
			if _, err := fmt.Fprintln(w, s); err != nil {
				return err
			}
			continue
		}
		if err := writeJSON(w, r, a.pretty); err != nil {
			return err
		}
	}
}

func writeJSON(w io.Writer, v any, pretty bool) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if pretty {
		enc.SetIndent("", "  ")
	}
	return enc.Encode(v)
}
