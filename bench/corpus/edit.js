// A prepared edit of a corpus page (bench/corpus/server.ts serves it while an edit is set): once the
// page has loaded (and its scripts have rendered), the first visible heading is reworded (its last
// word), recoloured, or pushed 48 px down (everything under it moves). Applied once per page.
(function () {
  var kind = '__KIND__';
  function visible(el) {
    var r = el.getBoundingClientRect();
    var s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && r.top + window.scrollY < 3000 && s.visibility !== 'hidden' && s.display !== 'none' && s.opacity !== '0';
  }
  function lastTextNode(el) {
    var walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    var found = null;
    for (var n = walker.nextNode(); n; n = walker.nextNode()) if (/\S{2,}/.test(n.nodeValue)) found = n;
    return found;
  }
  function target() {
    var list = document.querySelectorAll('h1, h2, h3, .navbar-brand, h4, header p, main p, p');
    for (var i = 0; i < list.length; i++) if (visible(list[i]) && lastTextNode(list[i])) return list[i];
    return null;
  }
  function apply() {
    if (document.documentElement.hasAttribute('data-corpus-edit')) return;
    var el = target();
    if (!el) return;
    document.documentElement.setAttribute('data-corpus-edit', kind);
    if (kind === 'text') {
      var node = lastTextNode(el);
      var words = node.nodeValue.replace(/\s+$/, '').split(/(\s+)/);
      var last = words.length - 1;
      words[last] = words[last] === 'Edited' ? 'Changed' : 'Edited';
      node.nodeValue = words.join('');
    } else if (kind === 'colour') {
      var rgb = getComputedStyle(el).color.match(/\d+/g) || ['0', '0', '0'];
      el.style.setProperty('color', Number(rgb[0]) > 150 && Number(rgb[1]) < 100 ? 'rgb(20, 90, 220)' : 'rgb(220, 30, 30)', 'important');
    } else if (kind === 'layout') {
      var top = parseFloat(getComputedStyle(el).marginTop) || 0;
      el.style.setProperty('margin-top', top + 48 + 'px', 'important');
    }
  }
  function later() {
    setTimeout(apply, 50);
  }
  if (document.readyState === 'complete') later();
  else window.addEventListener('load', later);
})();
