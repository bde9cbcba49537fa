// The word lists the built-in reasoner reads queries with: function words, verbs, generic words, aspects, study designs.
// Kept apart from the rules that use them so understanding and judging share one vocabulary.

/** Words that never begin, end or belong to an entity: determiners, pronouns, prepositions, conjunctions, auxiliaries. */
export const FUNCTION_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'the', 'this', 'that', 'these', 'those', 'some', 'any', 'all', 'each', 'every', 'no', 'not', 'nor', 'none',
  'i', 'me', 'my', 'we', 'us', 'our', 'you', 'your', 'he', 'she', 'him', 'her', 'his', 'it', 'its', 'they', 'them', 'their',
  'what', 'which', 'who', 'whom', 'whose', 'where', 'when', 'why', 'how', 'whether', 'if', 'than', 'then', 'there', 'here',
  'of', 'in', 'on', 'at', 'by', 'for', 'from', 'to', 'into', 'onto', 'with', 'without', 'within', 'about', 'among', 'amongst',
  'between', 'through', 'during', 'after', 'before', 'since', 'until', 'over', 'under', 'above', 'below', 'via', 'per', 'across',
  'against', 'towards', 'toward', 'upon', 'beyond', 'versus', 'vs', 'and', 'or', 'but', 'as', 'so', 'also', 'both', 'either',
  'neither', 'only', 'just', 'very', 'more', 'most', 'less', 'least', 'much', 'many', 'few', 'fewer', 'such', 'same', 'other',
  'another', 'own', 'too', 'again', 'further', 'once', 'ever', 'often', 'always', 'usually', 'even', 'still', 'yet', 'already',
  'is', 'are', 'was', 'were', 'be', 'been', 'being', 'am', 'has', 'have', 'had', 'having', 'do', 'does', 'did', 'doing', 'done',
  'can', 'could', 'may', 'might', 'must', 'should', 'would', 'will', 'shall', 'please', 'tell', 'show', 'find', 'give', 'get',
  'know', 'want', 'need', 'like', 'look', 'looking', 'search', 'searching', 'anything', 'something', 'everything', 'thing',
  'things', 'stuff', 'way', 'ways', 'kind', 'kinds', 'lot', 'lots', 'well', 'really', 'actually', 'currently',
  'recent', 'recently', 'new', 'latest', 'current', 'known', 'whereas', 'while', 'although', 'though', 'because', 'due', 'whilst',
  'compared', 'relative', 'respectively', 'ok', 'okay', 'hi', 'hello', 'thanks', 'thank', 'now', 'then', 'else', 'let', 'lets',
]);

/** Verbs that link the entities of a claim or question ("X reduces Y"); they split noun phrases. */
const VERB_STEMS = [
  'increase', 'decrease', 'reduce', 'induce', 'cause', 'lead', 'promote', 'inhibit', 'prevent', 'improve', 'affect', 'associate',
  'correlate', 'regulate', 'mediate', 'require', 'result', 'enhance', 'impair', 'suppress', 'activate', 'contribute', 'play',
  'show', 'find', 'demonstrate', 'suggest', 'indicate', 'reveal', 'trigger', 'drive', 'protect', 'block', 'bind', 'depend',
  'raise', 'lower', 'elevate', 'alter', 'change', 'modulate', 'control', 'limit', 'restrict', 'stimulate', 'attenuate', 'worsen',
  'exacerbate', 'ameliorate', 'treat', 'cure', 'help', 'work', 'compare', 'differ', 'predict', 'determine', 'involve', 'link',
  'relate', 'express', 'encode', 'target', 'interact', 'confer', 'facilitate', 'accelerate', 'delay', 'produce', 'generate',
  'form', 'maintain', 'lose', 'gain', 'exhibit', 'display', 'occur', 'develop', 'undergo', 'receive', 'use', 'make', 'become',
  'remain', 'appear', 'seem', 'fail', 'lack', 'contain', 'include', 'exist', 'report', 'observe', 'detect', 'measure', 'identify',
  'diagnose', 'respond', 'recruit', 'translocate', 'degrade', 'impact', 'benefit', 'harm', 'outperform', 'exceed', 'cross',
  'present', 'characterize', 'characterise', 'explain', 'account', 'underlie', 'decline', 'rise', 'fall', 'drop', 'grow', 'spread',
  'kill', 'die', 'survive', 'recover', 'mimic', 'resemble', 'compensate', 'restore', 'rescue', 'abolish', 'eliminate', 'enable',
  'allow', 'permit', 'disrupt', 'initiate', 'propagate', 'sensitize', 'sensitise', 'upregulate', 'downregulate', 'phosphorylate',
];

function inflections(stem: string): string[] {
  const forms = [stem, `${stem}s`, `${stem}es`, `${stem}d`, `${stem}ed`, `${stem}ing`];
  if (stem.endsWith('e')) forms.push(`${stem.slice(0, -1)}ing`, `${stem.slice(0, -1)}ed`);
  if (/[^aeiou][aeiou][bdglmnprt]$/.test(stem)) forms.push(`${stem}${stem.at(-1)}ed`, `${stem}${stem.at(-1)}ing`);
  if (stem.endsWith('y')) forms.push(`${stem.slice(0, -1)}ies`, `${stem.slice(0, -1)}ied`);
  return forms;
}

export const VERBS: ReadonlySet<string> = new Set([
  ...VERB_STEMS.flatMap(inflections),
  'led', 'found', 'shown', 'made', 'lost', 'grown', 'fell', 'rose', 'drove', 'driven', 'bound', 'underlies', 'underlay', 'arises',
  'arise', 'arose',
]);

/** Words too general to make a query specific or to name an entity on their own ("treatment options", "effects"). */
export const GENERIC_WORDS: ReadonlySet<string> = new Set([
  'treatment', 'treatments', 'option', 'options', 'therapy', 'therapies', 'research', 'information', 'info', 'study', 'studies',
  'effect', 'effects', 'disease', 'diseases', 'health', 'medicine', 'medicines', 'medical', 'drug', 'drugs', 'symptom', 'symptoms',
  'cause', 'causes', 'risk', 'risks', 'outcome', 'outcomes', 'evidence', 'paper', 'papers', 'article', 'articles', 'literature',
  'publication', 'publications', 'data', 'result', 'results', 'finding', 'findings', 'role', 'roles', 'impact', 'association',
  'associations', 'relationship', 'relationships', 'link', 'links', 'factor', 'factors', 'problem', 'problems', 'issue', 'issues',
  'question', 'questions', 'topic', 'topics', 'overview', 'summary', 'review', 'reviews', 'analysis', 'method', 'methods',
  'approach', 'approaches', 'management', 'care', 'patient', 'patients', 'people', 'person', 'case', 'cases', 'condition',
  'conditions', 'intervention', 'interventions', 'benefit', 'benefits', 'use', 'uses', 'level', 'levels', 'change', 'changes',
  'mechanism', 'mechanisms', 'safety', 'efficacy', 'effectiveness', 'best', 'good', 'better', 'important', 'new', 'latest',
  'cure', 'cures', 'help', 'advice', 'guidance', 'guidelines', 'science', 'scientific', 'clinical', 'work', 'works', 'it', 'them',
  'stuff', 'thing', 'things', 'about', 'regarding', 'concerning', 'body', 'human', 'humans', 'life',
]);

/** Words that head a phrase but say nothing about its subject; trimmed from the edges of entities. */
export const ENTITY_EDGE_WORDS: ReadonlySet<string> = new Set([
  'effect', 'effects', 'role', 'roles', 'impact', 'impacts', 'association', 'associations', 'relationship', 'relationships',
  'link', 'links', 'evidence', 'study', 'studies', 'research', 'paper', 'papers', 'article', 'articles', 'literature', 'data',
  'use', 'uses', 'usage', 'influence', 'contribution', 'presence', 'absence', 'level', 'levels', 'amount', 'amounts', 'number',
  'numbers', 'rate', 'rates', 'benefit', 'benefits', 'mechanism', 'mechanisms', 'safety', 'efficacy', 'effectiveness',
  'outcome', 'outcomes', 'information', 'question', 'questions', 'overview', 'summary', 'analysis', 'findings', 'result', 'results',
  'publications', 'publication', 'review', 'reviews', 'trial', 'trials', 'meta-analysis', 'meta-analyses', 'option', 'options',
  'type', 'types', 'kind', 'kinds', 'form', 'forms', 'way', 'ways', 'best', 'good', 'new', 'latest', 'recent', 'important',
  'significant', 'possible', 'potential', 'common', 'certain', 'specific', 'different', 'various', 'several', 'main', 'major',
  'higher', 'lower', 'high', 'low', 'increased', 'decreased', 'reduced', 'elevated', 'greater', 'less', 'fewer', 'poorer',
  'poor', 'worse', 'better', 'improved', 'impaired', 'enhanced', 'altered', 'abnormal', 'normal', 'total', 'overall',
]);

/** Facets a query asks about, found by cue words (stems or phrases, matched on word starts). */
export const ASPECT_CUES: ReadonlyArray<{ aspect: string; cues: RegExp }> = [
  { aspect: 'mechanism', cues: /\b(mechanism|mechanisms|mechanistic|pathways?|how does|how do|molecular basis|signal(l)?ing|mode of action)\b/i },
  { aspect: 'efficacy', cues: /\b(efficacy|effective(ness)?|works?|improve[sd]?|reduce[sd]?|treat(s|ed|ing|ment)?|benefit[s]?|prevent(s|ed|ion)?)\b/i },
  { aspect: 'safety', cues: /\b(safety|safe|adverse|side[- ]effects?|toxicity|toxic|harms?|complications?|risks? of)\b/i },
  { aspect: 'risk and association', cues: /\b(risk|associated|association|linked|correlat\w*|cause[sd]?|causal|predispos\w*)\b/i },
  { aspect: 'diagnosis', cues: /\b(diagnos\w*|biomarkers?|screening|detection|sensitivity|specificity)\b/i },
  { aspect: 'prognosis and survival', cues: /\b(prognos\w*|survival|mortality|death|recurrence)\b/i },
  { aspect: 'epidemiology', cues: /\b(prevalence|incidence|epidemiolog\w*|burden)\b/i },
  { aspect: 'dosing', cues: /\b(dose|doses|dosage|dosing)\b/i },
  { aspect: 'cost-effectiveness', cues: /\b(cost|costs|cost-effective\w*|economic)\b/i },
];

/** Study designs: not an article type (the catalogue has no such field), so an aspect and a search phrase. */
export const STUDY_DESIGNS: ReadonlyArray<{ design: string; pattern: RegExp }> = [
  { design: 'randomized controlled trial', pattern: /\b(RCTs?|randomi[sz]ed(,? (double-blind|placebo-controlled|controlled))*( clinical)? trials?)\b/i },
  { design: 'cohort study', pattern: /\b((prospective|retrospective) )?cohort stud(y|ies)\b/i },
  { design: 'case-control study', pattern: /\bcase[- ]control stud(y|ies)\b/i },
  { design: 'cross-sectional study', pattern: /\bcross[- ]sectional stud(y|ies)\b/i },
  { design: 'observational study', pattern: /\bobservational stud(y|ies)\b/i },
  { design: 'animal study', pattern: /\b(animal (stud(y|ies)|models?)|mouse models?|murine models?)\b/i },
  { design: 'in vitro study', pattern: /\bin vitro stud(y|ies)\b/i },
];
