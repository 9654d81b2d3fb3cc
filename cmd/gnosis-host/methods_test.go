package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/gnosis/gnosis/host/config"
	"github.com/gnosis/gnosis/host/framing"
	"github.com/gnosis/gnosis/host/grants"
	"github.com/gnosis/gnosis/host/method"
	"github.com/gnosis/gnosis/host/providers"
	"github.com/gnosis/gnosis/host/relay"
	"github.com/gnosis/gnosis/host/workspace"
	"github.com/gnosis/gnosis/runtime"
)

// The host, run as a browser runs it, answers every method of
// method.Names (with an error about the empty params, but never
// UNKNOWN_METHOD), and a name it does not serve with UNKNOWN_METHOD.
func TestHostServesEveryMethodOfNames(t *testing.T) {
	_, in, r := hostProcess(t, "chrome-extension://mbegimjagonemgohdcndepbpfbmlmgdd/")
	defer in.Close()
	code := func(id int, name string) string {
		t.Helper()
		framing.Write(in, fmt.Appendf(nil, `{"id":%d,"method":%q,"params":{}}`, id, name))
		for {
			body, err := r.Read()
			if err != nil {
				t.Fatalf("%s: reading the reply: %v", name, err)
			}
			var m struct {
				ID   *int   `json:"id"`
				Code string `json:"code"`
			}
			if json.Unmarshal(body, &m) == nil && m.ID != nil && *m.ID == id {
				return m.Code
			}
		}
	}
	for i, name := range method.Names {
		if got := code(i+1, name); got == "UNKNOWN_METHOD" {
			t.Errorf("the host does not serve %q, which method.Names lists", name)
		}
	}
	if got := code(1000, "no.such.method"); got != "UNKNOWN_METHOD" {
		t.Errorf("an unknown method got %q, want UNKNOWN_METHOD", got)
	}
}

// The parts of the host that bring their own methods serve none that
// method.Names lacks.
func TestPartsServeOnlyMethodsOfNames(t *testing.T) {
	rt := runtime.New()
	path := t.TempDir() + "/config.json"
	tables := map[string]method.Table{
		"grants":    grants.New(rt, path).Methods(),
		"providers": providers.New(rt, path, func(config.Provider) runtime.Provider { return nil }).Methods(),
		"workspace": workspace.Open("").Methods(),
		"relay":     relay.New(relay.Config{}).Methods(),
	}
	for part, table := range tables {
		for _, name := range slices.Sorted(maps.Keys(table)) {
			if !slices.Contains(method.Names, name) {
				t.Errorf("%s serves %q, which method.Names lacks", part, name)
			}
		}
	}
}
