// The concepts a request names, as the judge matches them: whole concepts and their synonyms, never a fragment ("d"
// of "5 mg/d"), the central concept a verified row must name (or an alternative the request offers in its place), and
// a mention that is only what every participant got.
import { describe, expect, it } from "vitest";
import { callEvidence } from "../../src/reasoner/builtin/judge.js";
import {
  centralAlternatives,
  conceptOf,
  conceptText,
  matchedConcepts,
  mentionOf,
  namesConcept,
  sentencesText,
  subjectConcepts,
  distinctiveUnit,
  twoUnitDistinctive,
  type ConceptText,
} from "../../src/reasoner/builtin/concepts.js";

/** The request's central concept: the first of its alternatives, where the entities are joined by nothing. */
const centralConcept = (entities: string[]) =>
  centralAlternatives(entities.join(" "), entities, "literature")[0] ?? null;
const vitaminD = ["vitamin D supplementation", "fracture risk", "older adults"];
// the row a customer was charged for: an alendronate trial whose "5 mg/d" has a "d"
const alendronate = conceptText(
  "Alendronate for the prevention of fractures in postmenopausal women",
  "Women were given alendronate 5 mg/d or placebo, with calcium supplements. Fracture risk fell among the aged.",
);
const cholecalciferol = conceptText(
  "Effect of cholecalciferol on hip fractures",
  "Cholecalciferol 800 IU daily reduced hip fractures among elderly women living in nursing homes.",
);

describe("conceptOf and centralConcept", () => {
  it("cuts what is done with a concept from its edges", () => {
    expect(conceptOf("vitamin D supplementation")).toBe("vitamin D");
    expect(conceptOf("fracture risk")).toBe("fracture");
    expect(conceptOf("ALDH1 expression")).toBe("ALDH1");
    expect(conceptOf("the role of")).toBeNull();
  });

  it("is the first entity's concept that has something to match, passing over an aspect asked about", () => {
    expect(centralConcept(vitaminD)).toBe("vitamin D");
    expect(centralConcept(["pharmacokinetics", "emicizumab", "haemophilia"])).toBe("emicizumab");
    // a quantity names no concept
    expect(centralConcept(["5 million", "UK", "PrP positivity"])).toBe("PrP positivity");
    expect(centralConcept([])).toBeNull();
  });
});

describe("distinctiveUnit", () => {
  const cbt = conceptText(
    "Cognitive behavior therapy for borderline personality disorder",
    "A randomized controlled trial of cognitive behavior therapy in addition to treatment as usual.",
  );
  const dbt = conceptText(
    "Dialectical behaviour therapy for women with borderline personality disorder",
    "A randomised trial of dialectical behaviour therapy against treatment as usual.",
  );

  it("are the units of a concept the fewest candidates name, which a candidate must name to name the concept", () => {
    const distinctive = distinctiveUnit("dialectical behaviour", [cbt, cbt, dbt]);
    expect(distinctive).toEqual(["dialect"]);
    // half the units ("behaviour") names the concept for the share rule alone, not with its distinctive unit
    expect(namesConcept("dialectical behaviour", cbt)).toBe(true);
    expect(namesConcept("dialectical behaviour", cbt, 0.5, distinctive)).toBe(false);
    expect(namesConcept("dialectical behaviour", dbt, 0.5, distinctive)).toBe(true);
  });

  it("read British and American spellings alike, suffixed too: 'behavioural' is 'behavioral'", () => {
    const british = conceptText("Dialectical behavioural therapy in adolescents", "Dialectical behavioural skills.");
    expect(distinctiveUnit("dialectical behaviour", [cbt, cbt, british])).toEqual(["dialect"]);
    expect(namesConcept("dialectical behavior", british, 1)).toBe(true);
  });

  it("are none for a concept of one unit, or whose units the candidates name alike", () => {
    expect(distinctiveUnit("vitamin D", [alendronate, cholecalciferol])).toBeNull();
    expect(distinctiveUnit("borderline personality disorder", [cbt, dbt])).toBeNull();
    // a request to check keeps the reading of two units the candidates both name: "Ly49Q" alone names "active Ly49Q"
    expect(twoUnitDistinctive("dialectical behaviour", [cbt, cbt])).toBeNull();
  });

  it("are a unit no candidate names, of a concept of two to four: then none names it", () => {
    // among cognitive behaviour therapy trials only, a dialectical behaviour therapy request names none of them
    expect(distinctiveUnit("dialectical behaviour", [cbt, cbt])).toEqual(["dialect"]);
    const adalimumab = conceptText(
      "AURIEL-PsO: a randomized, double-blind phase III equivalence trial of a proposed adalimumab biosimilar",
      "The biosimilar demonstrated clinical equivalence to the reference adalimumab in plaque psoriasis.",
    );
    const rituximab = conceptText(
      "Pharmacokinetic equivalence of a rituximab biosimilar",
      "A clinical study of the biosimilar against the reference product.",
    );
    const concept = "omalizumab biosimilar clinical equivalence";
    const absent = distinctiveUnit(concept, [adalimumab, rituximab]);
    expect(absent).toEqual(["omalizumab"]);
    // half the units name it by the share rule; with the absent unit, neither biosimilar trial does
    expect(namesConcept(concept, adalimumab)).toBe(true);
    expect(namesConcept(concept, adalimumab, 0.5, absent)).toBe(false);
    expect(namesConcept(concept, rituximab, 0.5, absent)).toBe(false);
    // a longer run of keywords is read by the share rule alone: one coinage no candidate writes empties nothing
    expect(
      distinctiveUnit("non-medical switch biosimilar adalimumab etanercept retransition", [adalimumab]),
    ).toBeNull();
    // no unit named at all: nothing to tell apart
    expect(distinctiveUnit("omalizumab asthma", [cbt])).toBeNull();
  });
});

describe("subjectConcepts", () => {
  it("are the concepts less those naming only who was studied or what is asked", () => {
    expect(subjectConcepts(vitaminD)).toEqual(["vitamin D", "fracture"]);
    expect(subjectConcepts(["metformin", "prevention", "hearing loss"])).toEqual(["metformin", "hearing loss"]);
    expect(subjectConcepts(["tamoxifen", "incidence", "dementia", "adults"])).toEqual(["tamoxifen", "dementia"]);
    expect(subjectConcepts(["pharmacokinetics", "emicizumab", "postmenopausal women"])).toEqual(["emicizumab"]);
    // a population with a condition is a subject
    expect(subjectConcepts(["women with breast cancer"])).toEqual(["women with breast cancer"]);
  });

  it("are counted in a row as the verdict counts them: fractures in older adults name one of vitamin D's two", () => {
    const named = (text: ConceptText) => subjectConcepts(vitaminD).filter((c) => namesConcept(c, text)).length;
    expect(named(alendronate)).toBe(1);
    expect(named(cholecalciferol)).toBe(2);
  });
});

describe("matchedConcepts", () => {
  it("names the concepts a row holds as the row writes them, never a fragment", () => {
    expect(matchedConcepts(vitaminD, alendronate)).toEqual(["Fracture risk", "aged"]);
    expect(matchedConcepts(vitaminD, cholecalciferol)).toEqual(["cholecalciferol", "fractures", "elderly"]);
  });

  it("reads a study of colon or rectal cancer as one of colorectal cancer", () => {
    const entities = ["hormone replacement therapy", "colorectal cancer", "postmenopausal women"];
    const colon = conceptText(
      "Cancer risk after hormone replacement therapy",
      "The risk estimates for liver and biliary tract cancers and for colon cancer were reduced by about 40%.",
    );
    expect(matchedConcepts(entities, colon)).toContain("colon cancer");
    // every word of it, as a call whose candidates hold "cancer" more often than "colorectal" reads it
    expect(namesConcept("colorectal cancer", colon, 1)).toBe(true);
    expect(namesConcept("colorectal cancer", conceptText(null, "Breast cancer risk rose with estrogen."), 1)).toBe(
      false,
    );
  });

  it("reads a run of keywords as the concepts in it", () => {
    const text = conceptText(null, "Supplementation with vitamin D reduced the risk of fracture in older adults.");
    expect(matchedConcepts(["vitamin D supplementation fracture risk older adults"], text)).toEqual([
      "vitamin D",
      "fracture",
      "older adults",
    ]);
  });

  it("reads British and American spellings alike", () => {
    const text = conceptText(null, "Dialectical behavior therapy reduced self-harm in hemophilia and in tumors.");
    expect(matchedConcepts(["dialectical behaviour therapy"], text)).toEqual(["Dialectical behavior therapy"]);
    const american = conceptText(null, "A randomized trial of pediatric anemia and edema slowed tumor growth.");
    const british = ["randomised trial", "tumour growth", "paediatric", "anaemia", "oedema"];
    expect(matchedConcepts(british, american)).toEqual([
      "randomized trial",
      "tumor growth",
      "pediatric",
      "anemia",
      "edema",
    ]);
  });
});

describe("namesConcept", () => {
  const namesCentral = (entities: string[], text: ConceptText) => namesConcept(centralConcept(entities)!, text);

  it("refuses a row that misses the central concept, however many peripheral words it shares", () => {
    expect(namesCentral(vitaminD, alendronate)).toBe(false);
    // "vitamin" and "d" apart are not vitamin D
    expect(namesCentral(vitaminD, conceptText(null, "A vitamin was given at 5 mg/d."))).toBe(false);
  });

  it("holds a row that names it whole, by a synonym, or by half its words in one sentence", () => {
    expect(namesCentral(vitaminD, conceptText(null, "Vitamin D3 was given daily."))).toBe(true);
    expect(namesCentral(vitaminD, cholecalciferol)).toBe(true);
    expect(namesConcept("active Ly49Q", conceptText(null, "Ly49Q is needed for polarization."))).toBe(true);
    // every unit, when asked for all of them
    expect(namesConcept("active Ly49Q", conceptText(null, "Ly49Q is needed for polarization."), 1)).toBe(false);
  });

  it("reads only the sentences it is given (a title and a best sentence)", () => {
    const about = sentencesText(["Effect of alendronate on fracture", "Fracture risk fell by half."]);
    expect(namesCentral(vitaminD, about)).toBe(false);
  });
});

describe("mentionOf", () => {
  // SciFact 11246427, the row the vitamin D question was charged for: vitamin D is what every participant received
  const trial = conceptText(
    "Effect of alendronate on risk of fracture in women with low bone density but without vertebral fractures",
    [
      "DESIGN Randomized, blinded, placebo-controlled trial.",
      "INTERVENTION All participants reporting calcium intakes of 1000 mg/d or less received a supplement containing",
      "500 mg of calcium and 250 IU of cholecalciferol.",
      "Subjects were randomly assigned to either placebo or 5 mg/d of alendronate sodium for 2 years.",
    ].join(" "),
  );

  it("tells a concept every arm received from what a study compares", () => {
    expect(mentionOf("vitamin D", trial)).toBe("background");
    expect(mentionOf("alendronate", trial)).toBe("named");
    const compared = conceptText(null, "Women were randomized to cholecalciferol or placebo; all received calcium.");
    expect(mentionOf("vitamin D", compared)).toBe("named");
    const both = conceptText(
      null,
      "Both groups were given vitamin D daily. Serum vitamin D levels predicted fracture.",
    );
    expect(mentionOf("vitamin D", both)).toBe("named");
    expect(mentionOf("vitamin D", conceptText(null, "Each of the patients took vitamin D and calcium daily."))).toBe(
      "background",
    );
    expect(mentionOf("vitamin D", alendronate)).toBe("absent");
  });
});

describe("centralConcept", () => {
  it("reads a run of keywords by its first concept, as the same need asked as a question names it", () => {
    expect(centralConcept(["vitamin D supplementation fracture risk older adults"])).toBe("vitamin D");
    expect(centralConcept(vitaminD)).toBe("vitamin D");
    // a run with no edge word to cut it stays whole
    expect(centralConcept(["machine learning sepsis prediction"])).toBe("machine learning sepsis prediction");
  });
});

describe("centralAlternatives", () => {
  const dbt = ["dialectical behaviour therapy", "mentalization-based treatment", "borderline personality disorder"];
  it("offers the arms a request for literature compares, and the options of an 'or' or a list, in any request", () => {
    const versus =
      "dialectical behaviour therapy versus mentalization-based treatment for borderline personality disorder";
    expect(centralAlternatives(versus, dbt, "literature")).toEqual(["dialectical behaviour", "mentalization-based"]);
    expect(centralAlternatives("DBT vs. MBT for BPD", ["DBT", "MBT", "BPD"], "literature")).toEqual(["DBT", "MBT"]);
    expect(
      centralAlternatives(
        "compare cognitive behavioural therapy with interpersonal therapy for depression",
        ["cognitive behavioural therapy", "interpersonal therapy", "depression"],
        "literature",
      ),
    ).toEqual(["cognitive behavioural", "interpersonal"]);
    const or = "Does dialectical behaviour therapy or mentalization-based treatment reduce self-harm in BPD?";
    expect(centralAlternatives(or, [...dbt.slice(0, 2), "self-harm", "BPD"], "check")).toEqual([
      "dialectical behaviour",
      "mentalization-based",
    ]);
    expect(
      centralAlternatives(
        "How do cyclobenzaprine, tizanidine, baclofen and other muscle relaxants compare for spasticity?",
        ["cyclobenzaprine", "tizanidine", "baclofen", "muscle relaxants", "spasticity"],
        "literature",
      ),
    ).toEqual(["cyclobenzaprine", "tizanidine", "baclofen", "muscle relaxants"]);
  });

  it("offers no control arm, no comparison a claim makes, and no comma that ends no list", () => {
    expect(
      centralAlternatives(
        "vitamin D versus placebo for fractures",
        ["vitamin D", "placebo", "fractures"],
        "literature",
      ),
    ).toEqual(["vitamin D"]);
    // a claim comparing two names both: the comparison offers no alternative
    expect(
      centralAlternatives("Metformin versus sulfonylureas lowers mortality.", ["Metformin", "sulfonylureas"], "check"),
    ).toEqual(["Metformin"]);
    expect(
      centralAlternatives(
        "In British Men, haplogroup I decreases risk of cardiovascular disease.",
        ["British Men", "haplogroup I", "cardiovascular disease"],
        "check",
      ),
    ).toEqual(["British Men"]);
    // what follows the central concept otherwise ("after", "for") is no alternative
    expect(centralAlternatives("metformin for fracture risk", ["metformin", "fracture risk"], "literature")).toEqual([
      "metformin",
    ]);
    expect(centralAlternatives("the role of", ["the role of"], "literature")).toEqual([]);
  });

  it("lets a row of either arm name the request's central concept", () => {
    const mbtOnly = conceptText(
      "Mentalization-based treatment for borderline personality disorder: a randomized trial",
      "Patients receiving mentalization-based treatment self-harmed less than those in structured clinical management.",
    );
    const dbtOnly = conceptText(
      "Dialectical behavior therapy for borderline personality disorder",
      "Dialectical behavior therapy reduced suicide attempts compared with community treatment by experts.",
    );
    const evidence = (query: string, kind: "check" | "literature") =>
      callEvidence(
        { query, entities: dbt },
        [
          { id: "m", title: null, collection: "c" },
          { id: "d", title: null, collection: "c" },
        ],
        [mbtOnly, dbtOnly],
        [null, null],
        [0.5, 0.5],
        "anywhere",
        kind,
      ).namesCentral;
    const versus =
      "dialectical behaviour therapy versus mentalization-based treatment for borderline personality disorder";
    expect(evidence(versus, "literature")).toEqual([true, true]);
    // without the comparison, the first concept is the one a row must name
    const with_ =
      "dialectical behaviour therapy with mentalization-based treatment for borderline personality disorder";
    expect(evidence(with_, "literature")).toEqual([false, true]);
  });
});

describe("a drug class named for what it does", () => {
  it("is not named by the act it is named for: muscle relaxants are not relaxation training", () => {
    const pool = [
      conceptText(null, "Muscle relaxation training reduced pain in breast cancer survivors."),
      conceptText(null, "Patients prescribed muscle relaxants reported less severe symptoms."),
      conceptText(null, "A muscle relaxant was given before surgery."),
    ];
    const distinctive = twoUnitDistinctive("muscle relaxants", pool);
    expect(pool.map((text) => namesConcept("muscle relaxants", text, 0.5, distinctive))).toEqual([false, true, true]);
    expect(namesConcept("stimulants", conceptText(null, "Deep brain stimulation improved tremor."))).toBe(false);
    expect(namesConcept("CNS depressants", conceptText(null, "Depression was common among the patients."))).toBe(false);
    expect(namesConcept("relaxation", conceptText(null, "Relaxation lowered anxiety before surgery."))).toBe(true);
  });
});
