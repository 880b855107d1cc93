import os

from analysis.core.models import model_slug

# model slug (the {model} wildcard) -> model spec
MODELS = {model_slug(m): m for m in ([config["model"]] if isinstance(config["model"], str) else config["model"])}
MIRROR = os.environ.get("ATTN_MIRROR") or config.get("mirror")
CORPORA = config["corpora"]
ALL_TARGETS = []  # each rules/*.smk appends its final outputs
CONDA_ENV = "../envs/attention.yaml"  # every rule's software (--sdm conda); relative to rules/


wildcard_constraints:
    model="|".join(map(re.escape, MODELS)) if MODELS else "NONE",
    corpus="|".join(map(re.escape, CORPORA)),
    shard=r"\d+",


def model_spec(wildcards):
    return MODELS[wildcards.model]


def attention_shards(corpus):
    """The .npy files of every shard of ``corpus`` for the rule's {model} (an input function)."""

    def inner(wildcards):
        n = CORPORA[corpus].get("n_shards", 1)
        return expand(
            "resources/attention/{model}/{corpus}/shard-{shard}.npy",
            model=wildcards.model,
            corpus=corpus,
            shard=range(n),
        )

    return inner


def per_model(*patterns):
    """Expand result paths over every configured model."""
    return expand(list(patterns), model=list(MODELS))


def table(name):
    return f"results/{{model}}/tables/{name}.csv"


def figure(name, category, caption=None):
    return report(
        f"results/{{model}}/figures/{name}.png",
        caption=caption or f"../report/{name}.rst",
        category=category,
        subcategory="{model}",
    )


def rule_log(name):
    return f"logs/{{model}}/{name}.log"


def checkpoint_dir(wildcards):
    """The fine-tuned checkpoint of {model} on GLUE {task} (rules/kovaleva.smk)."""
    return f"resources/finetune/{wildcards.model}/{wildcards.task}/model"


def glue_shards(variant):
    """Maps of the GLUE dev inputs of every configured task, for {model} (rules/kovaleva.smk)."""
    return expand(
        "resources/attention_glue/{{model}}/{variant}/{task}/shard-0.npy",
        variant=variant,
        task=config["kovaleva"]["tasks"],
    )
