// Keep what someone is typing when another device's change refreshes the tracker.
//
// A live refresh swaps #tracker. Just before, remember every edited input inside it (keyed by
// its id, or by its form's id and its name, plus the value for check boxes and radio buttons);
// just after, put the values back into the new inputs with the same key. A swap caused by your
// own form submit is not restored, so typed dice are not reused by the next roll.
(() => {
  let kept = null;

  function keyOf(input) {
    const form = input.form || input.closest("form");
    let key = input.id || (form && form.id && input.name ? `${form.id}:${input.name}` : "");
    if (key && (input.type === "checkbox" || input.type === "radio")) key += `=${input.value}`;
    return key;
  }

  function edited(input) {
    if (input.type === "hidden") return false;
    if (input.type === "checkbox" || input.type === "radio") return input.checked !== input.defaultChecked;
    if (input.tagName === "SELECT") return Array.from(input.options).some((o) => o.selected !== o.defaultSelected);
    return input.value !== input.defaultValue;
  }

  document.addEventListener("htmx:beforeSwap", (event) => {
    kept = null;
    const target = event.detail.target;
    const source = event.detail.requestConfig && event.detail.requestConfig.elt;
    if (!target || target.id !== "tracker" || (source && source.closest && source.closest("form"))) return;
    kept = new Map();
    const fields = Array.from(target.querySelectorAll("input, select, textarea"));
    // Inputs outside the tracker that belong to a form inside it (form="...") are not swapped.
    for (const field of fields) {
      const key = keyOf(field);
      if (key && edited(field)) kept.set(key, field.type === "checkbox" || field.type === "radio" ? field.checked : field.value);
    }
  });

  document.addEventListener("htmx:afterSwap", () => {
    if (!kept || kept.size === 0) return;
    const tracker = document.getElementById("tracker");
    if (!tracker) return;
    for (const field of tracker.querySelectorAll("input, select, textarea")) {
      const key = keyOf(field);
      if (!key || !kept.has(key) || field.disabled) continue;
      if (field.type === "checkbox" || field.type === "radio") field.checked = kept.get(key);
      else field.value = kept.get(key);
    }
    kept = null;
  });
})();
