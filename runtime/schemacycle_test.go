package runtime

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// A schema with many cycles reports the same one every time: the first in
// a search from the root meets first (root, dependentSchemas/z, kilo), not
// whichever one map iteration happens to reach.
func TestRefCycleReportsTheSameCycleEveryTime(t *testing.T) {
	var defs []string
	for _, name := range strings.Split("kilo,alpha,juliet,bravo,india,charlie,hotel,delta,golf,echo,foxtrot", ",") {
		defs = append(defs, fmt.Sprintf(`%q:{"anyOf":[{"type":"null"},{"$ref":"#/$defs/%s"}]}`, name, name))
	}
	var doc any
	if err := json.Unmarshal([]byte(`{"dependentSchemas":{"z":{"$ref":"#/$defs/kilo"}},"$defs":{`+strings.Join(defs, ",")+`}}`), &doc); err != nil {
		t.Fatal(err)
	}
	const want = `"#/$defs/kilo/anyOf/1" leads back to "#/$defs/kilo" without consuming input`
	for i := range 100 {
		if got := refCycle(doc); got != want {
			t.Fatalf("run %d: refCycle = %s, want %s", i, got, want)
		}
	}
}
