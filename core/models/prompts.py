"""Biography prompts in every language mfact offers (FActScore's "Tell me a bio of", Min et al. 2023).

Two styles:

- completion, for base models: "This is a Wikipedia article about {entity}. {entity}", which the
  model continues (FActScore's prompt for base models);
- chat, for instruct models: "Tell me a bio of {entity}.", sent as the user turn.

Each is written in the target language, phrased the way a native speaker would (reviewed by hand;
phrasings avoid grammatical case on the name where the language would inflect it, e.g. Russian and
Greek, so that any name can be dropped in unchanged).
"""
from __future__ import annotations

from ..languages import get_language

# lang -> completion prompt; the model continues after the second {entity}
COMPLETION: dict[str, str] = {
    "en": "This is a Wikipedia article about {entity}. {entity}",
    "es": "Este es un artículo de Wikipedia sobre {entity}. {entity}",
    "fr": "Ceci est un article de Wikipédia sur {entity}. {entity}",
    "de": "Dies ist ein Wikipedia-Artikel über {entity}. {entity}",
    "ru": "Это статья из Википедии под названием «{entity}». {entity}",
    "zh": "这是一篇关于{entity}的维基百科文章。{entity}",
    "vi": "Đây là một bài viết trên Wikipedia về {entity}. {entity}",
    "ja": "これは{entity}についてのウィキペディアの記事です。{entity}",
    "it": "Questa è una voce di Wikipedia su {entity}. {entity}",
    "pt": "Este é um artigo da Wikipédia sobre {entity}. {entity}",
    "tr": "Bu, {entity} hakkında bir Vikipedi maddesidir. {entity}",
    "ar": "هذه مقالة من ويكيبيديا عن {entity}. {entity}",
    "hi": "यह {entity} के बारे में एक विकिपीडिया लेख है। {entity}",
    "el": "Αυτό είναι ένα λήμμα της Βικιπαίδειας με θέμα: {entity}. {entity}",
    "bg": "Това е статия от Уикипедия за {entity}. {entity}",
    "th": "นี่คือบทความวิกิพีเดียเกี่ยวกับ{entity} {entity}",
    "ko": "이것은 {entity}에 관한 위키백과 문서입니다. {entity}",
    "fa": "این یک مقالهٔ ویکی‌پدیا دربارهٔ {entity} است. {entity}",
    "id": "Ini adalah artikel Wikipedia tentang {entity}. {entity}",
    "ur": "یہ {entity} کے بارے میں ویکیپیڈیا کا ایک مضمون ہے۔ {entity}",
    "bn": "এটি {entity} সম্পর্কে একটি উইকিপিডিয়া নিবন্ধ। {entity}",
    "sw": "Hii ni makala ya Wikipedia kuhusu {entity}. {entity}",
    "pl": "To jest artykuł z Wikipedii zatytułowany „{entity}”. {entity}",
    "ca": "Aquest és un article de la Viquipèdia sobre {entity}. {entity}",
    "cs": "Toto je článek z Wikipedie s názvem „{entity}“. {entity}",
    "fi": "Tämä on Wikipedia-artikkeli aiheesta {entity}. {entity}",
    "he": "זהו ערך בוויקיפדיה על {entity}. {entity}",
    "hu": "Ez egy Wikipédia-szócikk a következőről: {entity}. {entity}",
    "ro": "Acesta este un articol de pe Wikipedia despre {entity}. {entity}",
    "sr": "Ово је чланак са Википедије под насловом „{entity}”. {entity}",
    "eu": "Hau Wikipediako artikulu bat da, gaia: {entity}. {entity}",
    "eo": "Jen Vikipedia artikolo pri {entity}. {entity}",
    "la": "Haec est commentatio Vicipaediae cui titulus est «{entity}». {entity}",
    "lt": "Tai Vikipedijos straipsnis „{entity}“. {entity}",
    "ms": "Ini ialah rencana Wikipedia tentang {entity}. {entity}",
    "yue": "呢篇係關於{entity}嘅維基百科文章。{entity}",
    "sd": "هي {entity} بابت وڪيپيڊيا جو هڪ مضمون آهي. {entity}",
}

# lang -> the user's request to an instruct model
CHAT: dict[str, str] = {
    "en": "Tell me a bio of {entity}.",
    "es": "Cuéntame la biografía de {entity}.",
    "fr": "Raconte-moi la biographie de {entity}.",
    "de": "Erzähl mir die Biografie von {entity}.",
    "ru": "Расскажи биографию человека по имени {entity}.",
    "zh": "请介绍一下{entity}的生平。",
    "vi": "Hãy kể cho tôi nghe tiểu sử của {entity}.",
    "ja": "{entity}の経歴を教えてください。",
    "it": "Raccontami la biografia di {entity}.",
    "pt": "Conte-me a biografia de {entity}.",
    "tr": "Bana {entity} hakkında kısa bir biyografi anlat.",
    "ar": "حدّثني عن سيرة {entity}.",
    "hi": "मुझे {entity} की जीवनी बताइए।",
    "el": "Πες μου ένα σύντομο βιογραφικό με θέμα: {entity}.",
    "bg": "Разкажи ми биографията на {entity}.",
    "th": "ช่วยเล่าประวัติของ{entity}ให้ฟังหน่อย",
    "ko": "{entity}의 약력을 알려 주세요.",
    "fa": "زندگی‌نامهٔ {entity} را برایم بگو.",
    "id": "Ceritakan biografi {entity}.",
    "ur": "مجھے {entity} کی سوانح حیات بتائیں۔",
    "bn": "আমাকে {entity}-এর জীবনী বলুন।",
    "sw": "Nieleze wasifu wa {entity}.",
    "pl": "Przedstaw mi krótką biografię postaci: {entity}.",
    "ca": "Explica'm la biografia de {entity}.",
    "cs": "Napiš mi životopis osoby: {entity}.",
    "fi": "Kerro minulle elämäkerta: {entity}.",
    "he": "ספר לי את הביוגרפיה של {entity}.",
    "hu": "Írd le a következő személy életrajzát: {entity}.",
    "ro": "Spune-mi biografia următoarei persoane: {entity}.",
    "sr": "Испричај ми биографију особе: {entity}.",
    "eu": "Kontatu iezadazu pertsona honen biografia: {entity}.",
    "eo": "Rakontu al mi la biografion de {entity}.",
    "la": "Narra mihi vitam huius hominis: {entity}.",
    "lt": "Papasakok man šio asmens biografiją: {entity}.",
    "ms": "Ceritakan biografi {entity}.",
    "yue": "話我知{entity}嘅生平。",
    "sd": "مون کي {entity} جي سوانح حيات ٻڌايو.",
}

STYLES = ("completion", "chat")


def build_prompt(entity: str, lang: str, style: str = "completion") -> str:
    """The biography prompt for `entity` in `lang` (UnknownLanguage for a language mfact lacks)."""
    code = get_language(lang).code
    if style not in STYLES:
        raise ValueError(f"unknown prompt style {style!r}; one of {', '.join(STYLES)}")
    table = COMPLETION if style == "completion" else CHAT
    template = table.get(code) or _generic(code, style)
    name = " ".join(str(entity).split())      # one line: the prompt must not carry the name's newlines
    return template.replace("{entity}", name)


def _generic(code: str, style: str) -> str:
    """A language without a prompt of its own (the generic ones): the English prompt, asking for it."""
    name = get_language(code).name
    if style == "completion":
        return f"This is a {name}-language Wikipedia article about {{entity}}. {{entity}}"
    return f"Tell me a bio of {{entity}}. Write it in {name}."
